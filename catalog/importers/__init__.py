"""Pure import parsers (no Django): bytes in, typed rows + every row error out.

`price_list` reads our CSV template, `skypilot` a SkyPilot catalog `vms.csv`, `litellm`
LiteLLM's `model_prices_and_context_window.json`. The catalog services map the rows onto the
catalog and write them in one transaction.
"""
