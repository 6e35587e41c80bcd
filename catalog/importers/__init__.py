"""Pure import parsers (no Django): bytes in, typed rows + every row error out.

`price_list` reads our CSV template, `skypilot` a SkyPilot catalog `vms.csv`, `litellm`
LiteLLM's `model_prices_and_context_window.json`. Which catalog GPU a row is, is decided once, in
`identity` (with the instance-to-GPU table in `instances`). The catalog services map the rows
onto the catalog and write them in one transaction.
"""
