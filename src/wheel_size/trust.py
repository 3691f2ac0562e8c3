"""HTTPS trust for GitHub Enterprise Server with a private CA: the system trust store.

Light on purpose (no PyGithub, no requests): the console script calls
:func:`use_system_trust_store` before it knows the command, and ``--help`` stays fast.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from wheel_size.errors import InputError

__all__ = ["CA_BUNDLE_VARIABLES", "check_ca_bundles", "use_system_trust_store"]

# Variables that name a CA bundle file for HTTPS: requests' own, curl's (which requests
# reads too) and OpenSSL's (the system store's location, which truststore reads).
CA_BUNDLE_VARIABLES = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE")
_TRUSTSTORE_INJECTED = False


def check_ca_bundles(environ: Mapping[str, str] | None = None) -> None:
    """A CA bundle variable that names a missing file is an input error naming it, before
    any call (requests would fail later with a message that names neither)."""
    env = os.environ if environ is None else environ
    for name in CA_BUNDLE_VARIABLES:
        value = env.get(name, "")
        if value and not Path(value).is_file():
            raise InputError(
                f"{name}={value}: no such CA bundle file; point it at the PEM file of your "
                "certificate authority (inside the workspace for the container action) or unset it"
            )


def use_system_trust_store(environ: Mapping[str, str] | None = None) -> None:
    """Verify every HTTPS call of this process against the operating system's trust store
    (a private CA of GitHub Enterprise Server installed there is trusted), through the
    ``truststore`` library; ``REQUESTS_CA_BUNDLE`` still adds its bundle.

    This patches the process's ``ssl`` module, so only process entry points call it (the
    console script and the action's main), never a library function such as :func:`connect`.
    """
    global _TRUSTSTORE_INJECTED
    check_ca_bundles(environ)
    if _TRUSTSTORE_INJECTED:
        return
    try:
        import truststore
    except ImportError:  # an install without it: certifi's bundle, as before
        return
    truststore.inject_into_ssl()
    _TRUSTSTORE_INJECTED = True
