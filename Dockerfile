# syntax=docker/dockerfile:1
# lean-gym on real Lean: elan, one Lean release, Mathlib's prebuilt oleans and the REPL, built by
# `lean-gym setup`. Build:  docker build --build-arg LEAN_VERSION=v4.33.0-rc2 -t lean-gym .
# Never built in lean-gym's own CI (no Docker daemon, no internet there); tests/test_container.py lints it
# with hadolint. Sizes and start-up: docs/real-lean.md ("Container").
FROM debian:bookworm-slim

# A release with a REPL tag and a Mathlib tag (lean_gym/lean/versions.py); setup refuses any other.
ARG LEAN_VERSION=v4.33.0-rc2

SHELL ["/bin/bash", "-o", "pipefail", "-c"]
# Debian's own versions, not pinned: bookworm's archive drops superseded versions, so a pin breaks the build.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates curl git python3 python3-venv \
      bubblewrap libseccomp2 util-linux \
 && rm -rf /var/lib/apt/lists/*

# Not root: bubblewrap then drops every capability by itself, and a Lean process owns nothing of the image.
RUN useradd --create-home --uid 1000 --shell /bin/bash lean
USER 1000
WORKDIR /home/lean
ENV PATH=/home/lean/.elan/bin:/home/lean/venv/bin:$PATH \
    LEAN_GYM_WORKSPACE=/home/lean/lean_workspace

RUN curl -sSfL https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh \
  | sh -s -- -y --default-toolchain none

COPY --chown=1000:1000 . /home/lean/lean-gym
# setup writes the workspace of LEAN_VERSION, installs its toolchain, downloads Mathlib's oleans (~5 GB)
# and builds the REPL; doctor then runs one real check (a cold `import Mathlib`), so a broken image
# fails here rather than at its first use.
RUN python3 -m venv /home/lean/venv \
 && pip install --no-cache-dir "/home/lean/lean-gym[sandbox]" \
 && lean-gym setup --lean "${LEAN_VERSION}" --workspace "${LEAN_GYM_WORKSPACE}" \
 && lean-gym doctor

# The health check is selftest on this image's real Lean: the hack catalogue (every known hack refused with
# its class, the honest proofs accepted; exit 1 otherwise). Each run starts a REPL and imports Mathlib
# (~10 s warm, several GB), so it runs hourly; `lean-gym doctor --no-smoke` is the cheap check by hand.
HEALTHCHECK --interval=1h --timeout=10m --start-period=10m CMD ["lean-gym", "selftest", "--backend", "repl", "--family", "hacks"]
ENTRYPOINT ["lean-gym"]
CMD ["doctor", "--no-smoke"]
