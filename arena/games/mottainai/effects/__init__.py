"""Card effects grouped by timing class; each module registers its effects by card name."""
