FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
# The production storage, so that the image holds the hashed, brotli/gzip-compressed files.
RUN DEBUG=false SECRET_KEY=collectstatic-only-not-a-runtime-secret python manage.py collectstatic --noinput -v0
RUN useradd --create-home workbench && mkdir -p /app/var && chown -R workbench /app/var
USER workbench
EXPOSE 8000
# Sync workers: serve behind a buffering proxy (docker-compose.yml puts nginx in front).
CMD ["gunicorn", "config.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "60"]
