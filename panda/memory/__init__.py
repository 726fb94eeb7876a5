"""memory package."""
