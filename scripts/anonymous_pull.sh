#!/usr/bin/env bash
# Pull IMAGE for every platform a release ships, with no credentials at all: what another
# repository's runner does at "Set up job" of `uses: OWNER/wheel-size-action@v1`.
#
#   scripts/anonymous_pull.sh ghcr.io/owner/wheel-size-action:1.2.0@sha256:... wheel-size-action
#
# A new GHCR package is private; then the pull fails and this prints one ::error:: line with
# the fix (make the package public) and exits 1. Run by .github/workflows/release.yml.
set -euo pipefail
# --help prints the comment above and writes nothing (issue 29 item 6).
case "${1:-}" in -h|--help)
    sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
esac

image=${1:?usage: anonymous_pull.sh IMAGE PACKAGE}
package=${2:?usage: anonymous_pull.sh IMAGE PACKAGE}
platforms=${PLATFORMS:-linux/amd64 linux/arm64}
settings="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-OWNER/$package}/pkgs/container/$package"

config=$(mktemp -d)  # an empty Docker configuration: no login, no credential helper
trap 'rm -rf "$config"' EXIT

for platform in $platforms; do
    if ! said=$(DOCKER_CONFIG=$config docker pull -q --platform "$platform" "$image" 2>&1); then
        said=$(tr '\n' ' ' <<<"$said")
        echo "::error title=release::$image cannot be pulled without credentials ($platform: ${said% }): every other repository's uses: fails at 'Set up job'. Fix: make the package public ($settings → Package settings → Change visibility → Public), then re-run this release"
        exit 1
    fi
    size=$(DOCKER_CONFIG=$config docker image inspect --format '{{.Size}}' "$image")
    echo "pulled $image for $platform without credentials: $((size / 1048576)) MB"
    if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
        echo "- \`$image\` ($platform): $((size / 1048576)) MB, pulled anonymously" >> "$GITHUB_STEP_SUMMARY"
    fi
done
