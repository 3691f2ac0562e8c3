# The wheel-size container actions (the nightly job at the root, check/, split/ and audit/ all
# run this image). Releases pull a prebuilt multi-arch image of this file from GHCR
# (.github/workflows/release.yml); a fork or branch builds it from here.
#
# The base image is pinned by digest (the multi-arch index of python:3.12-slim), so a build
# today and a build next month start from the same bytes. To move it, look the new digest up
# with `docker buildx imagetools inspect python:3.12-slim` and change this one line.
ARG PYTHON_IMAGE=python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

# Two stages: the first installs our package with its dependencies (all have manylinux
# wheels for x86_64 and aarch64, so nothing is compiled) into the virtual environment
# /opt/wheel-size; the second copies only that environment into a slim image with git (for
# the data branch): no wheels, build tools, pip caches or sources. (Copying the wheels in and
# removing them in a later layer left them in the image: 17.6 MB of dead layer.) Both stages
# share the base image, so the environment's interpreter path is the same in both.
# The templates are compiled into the installed package once, here, not by every run
# (src/wheel_size/render/compiled.py: about 0.1 CPU-s a split report).
FROM ${PYTHON_IMAGE} AS build
COPY . /src
RUN python3 -m venv /opt/wheel-size \
    && /opt/wheel-size/bin/python -m pip install --no-cache-dir --disable-pip-version-check /src \
    && /opt/wheel-size/bin/python -m wheel_size.render.bytecode

FROM ${PYTHON_IMAGE}
# ca-certificates is the system trust store every HTTPS call is verified against (truststore);
# a private CA of GitHub Enterprise Server comes in through REQUESTS_CA_BUNDLE (docs/workflows.md).
RUN apt-get update \
    && apt-get install -y --no-install-recommends git ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /opt/wheel-size /opt/wheel-size
ENV PATH=/opt/wheel-size/bin:$PATH
COPY entrypoint /opt/wheel-size-action/entrypoint

# Exec form: inputs arrive as INPUT_* variables (hyphens kept), which a shell would drop; the
# action's runs.args (check, split, audit) arrive as arguments.
ENTRYPOINT ["/opt/wheel-size-action/entrypoint"]
