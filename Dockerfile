FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# The static step of `manage.py deploy` (docs/deployment.md), with the production storage, so
# that the image holds the hashed, brotli/gzip-compressed files; the web service's start runs
# the rest (`deploy --skip-static`: migrate, load_catalog). Build-only keys: settings refuse
# to load without them when DEBUG is off, and nothing built here keeps them.
RUN DEBUG=false SECRET_KEY=build-only-not-a-runtime-secret-0123456789abcdef \
    AUDIT_HMAC_KEY=build-only-not-a-runtime-key-0123456789abcdef \
    python manage.py deploy --static-only -v0
RUN useradd --create-home workbench && mkdir -p /app/var && chown -R workbench /app/var
USER workbench
EXPOSE 8000
# Sync workers: serve behind a buffering proxy (docker-compose.yml puts nginx in front).
CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "60"]
