# The wheel-size container action. Releases pull a prebuilt image of this file from GHCR
# (.github/workflows/release.yml); a fork or branch builds it from here.
#
# Two stages: the first builds our wheel and fetches the dependencies' wheels (all have
# manylinux wheels, so nothing is compiled); the second installs them into a slim image with
# git (for the data branch) and no build tools, pip caches or sources.
FROM python:3.12-slim AS build
COPY . /src
RUN python -m pip wheel --no-cache-dir --disable-pip-version-check --wheel-dir /wheels /src

FROM python:3.12-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends git ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /wheels /wheels
RUN python -m pip install --no-cache-dir --disable-pip-version-check --no-index \
        --find-links /wheels wheel-size-action \
    && rm -rf /wheels
COPY entrypoint /opt/wheel-size-action/entrypoint

# Exec form: inputs arrive as INPUT_* variables (hyphens kept), which a shell would drop.
ENTRYPOINT ["/opt/wheel-size-action/entrypoint"]
