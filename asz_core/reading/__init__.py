"""Reading a storage root as a person does: listing, id prefixes, full-text search, export (issue 20).

Everything here reads landed files and rounds and writes nothing under the
root except the search index, which is derived data (``<root>/_index/``,
see docs/storage-root.md).
"""
