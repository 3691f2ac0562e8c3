# The wheel-size container action: an official slim Python image with git (for the data
# branch) and this package installed. The runner builds it from this directory.
FROM python:3.12-slim

RUN apt-get update \
    && apt-get install -y --no-install-recommends git ca-certificates \
    && rm -rf /var/lib/apt/lists/*

COPY . /opt/wheel-size-action
RUN python -m pip install --no-cache-dir --disable-pip-version-check /opt/wheel-size-action \
    && chmod +x /opt/wheel-size-action/entrypoint

# Exec form: inputs arrive as INPUT_* variables (hyphens kept), which a shell would drop.
ENTRYPOINT ["/opt/wheel-size-action/entrypoint"]
