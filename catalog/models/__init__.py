"""Catalog: accelerators, model profiles, quotes (immutable versions), API routes, FX, RFQs,
price-file imports and the calibration ledger — one module per concept, all importable here."""

from __future__ import annotations

from catalog.choices import CapacityModel as CapacityModel
from catalog.choices import PriceUnit as PriceUnit
from catalog.choices import PrivateEndpoint as PrivateEndpoint
from catalog.models.calibration import CalibrationEntry as CalibrationEntry
from catalog.models.hardware import Accelerator as Accelerator
from catalog.models.hardware import ModelProfile as ModelProfile
from catalog.models.quotes import ELASTIC_CAPACITY as ELASTIC_CAPACITY
from catalog.models.quotes import Quote as Quote
from catalog.models.quotes import QuoteQuerySet as QuoteQuerySet
from catalog.models.rfqs import CatalogImportJob as CatalogImportJob
from catalog.models.rfqs import Rfq as Rfq
from catalog.models.routes import FxRate as FxRate
from catalog.models.routes import ModelApiRoute as ModelApiRoute
