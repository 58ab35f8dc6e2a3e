"""Retention, skeletons and repack (seed 000 Skeletons; origin-digest §2.6; issue 21)."""
