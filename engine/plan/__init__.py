"""Plans over the brief's load: break-even between capacity models, the plan across offers
(one engine: a fixed base with elastic or API overflow is its one-offer-pair case)."""
