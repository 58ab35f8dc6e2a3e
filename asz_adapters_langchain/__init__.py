"""LangChain / LangGraph adapter (dialect ``langsmith/1``): not yet built, so it registers no adapter (issue 11)."""
