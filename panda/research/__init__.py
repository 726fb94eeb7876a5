"""research package."""
