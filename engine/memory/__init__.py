"""Memory fit: weights, KV cache and activations against an accelerator's memory.

``spec`` holds the model and precision figures, ``fit`` the per-accelerator answer,
``context`` the context lengths a brief is fitted at and ``report`` the rows a page shows.
"""
