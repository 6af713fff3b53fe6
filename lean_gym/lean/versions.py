"""The Lean versions lean-gym can set up, as data: each one a REPL tag and a Mathlib tag for the same Lean.

A workspace needs three things to agree: the Lean toolchain, Mathlib at a tag built with it, and the
leanprover-community REPL at a tag built with it (Aesop comes with Mathlib's manifest). :data:`RELEASES`
lists every Lean version for which both tags are on record, read from the REPL repository itself: the
REPL's tag (``git rev-parse TAG^{commit}`` on leanprover-community/repl) and, at that tag, the REPL's own
Mathlib test project ``test/Mathlib/lake-manifest.json``, whose ``inputRev`` is Mathlib's tag and ``rev``
the commit Lake resolved it to (so the Mathlib tag existed, and this is its commit). The Aesop commit is
the one that manifest pins (information only: lean-gym never pins Aesop itself).

Not listed, on purpose: v4.20.1 and v4.23.0 (the REPL bumped to them in untagged commits ``8d025135``,
PR #103, and ``2f8073af``, PR #128), v4.20.0 (no REPL commit), v4.32.1, v4.32.2, v4.33.0, v4.33.1 and the
v4.34 line (no REPL tag on record here; REPL PRs #165–#168 bump to v4.33.0 … v4.34.0, but their tags could
not be read). ``lean-gym setup --lean`` refuses any version not in the table, listing those that are.

**The default is v4.33.0-rc2.** lean-gym's users are RL policies, the adversary the 2026 kernel fixes are
for: lean4#14484 (a proof of ``False`` through a metaprogram, fixed by PR #14498 in v4.32.1) and
lean4#14576 (wrong-structure projections, PR #14577, v4.32.2) and the v4.33 kernel-hardening batch
(reference-manual ``Manual/Releases/v4_33_0.lean``, "Kernel soundness fixes"; lean4lean PR #34 audits that
v4.33.0-rc2 already carries them). Of the versions whose two tags are on record, v4.33.0-rc2 is the newest
and the only one with those fixes. v4.26.0 (SATP's published figures) and v4.27.0 (the previous default)
stay selectable; they lack every fix above. Move the default to v4.34.0 once its REPL and Mathlib tags can
be confirmed (it adds the v4.33.1 kernel fixes, and the lean-kernel-arena's v4.34.0-rc2 checker is the
first official one to reject all six of its invalid tests that v4.33.0 accepted, arena PR #173).

Example:
    >>> release("v4.26.0").satp_layout
    'satp-v2-181'
    >>> DEFAULT_LEAN_VERSION
    'v4.33.0-rc2'
    >>> parse_version("v4.29.0-rc1") < parse_version("v4.29.0")
    True
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from lean_gym.errors import ConfigError

__all__ = [
    "DEFAULT_LEAN_VERSION",
    "NATIVE_AUX_AXIOMS_SINCE",
    "RELEASES",
    "LeanRelease",
    "at_least",
    "parse_version",
    "release",
    "supported_versions",
]

#: The REPL repository the table was read from, and the commit of that read (its HEAD, tag v4.33.0-rc2).
SOURCE = (
    "leanprover-community/repl @ 8948401ab4924499421c94b7facdfca5ff27d81d (tags and test/Mathlib manifests)"
)


@dataclass(frozen=True)
class LeanRelease:
    """One Lean version lean-gym can set up.

    Attributes:
        lean: The Lean release (``v4.33.0-rc2``), also the REPL's and Mathlib's tag.
        repl_commit: The commit the REPL's tag points to.
        repl_date: The date of that commit.
        mathlib_commit: The commit Mathlib's tag resolves to (from the REPL's test manifest).
        aesop_commit: The Aesop commit that Mathlib pins (information only).
        satp_layout: The SATP v2 aesop layout that goes with this Lean (``satp-v2-181`` is SATP's on
            v4.26.0; ``satp-v2`` its v4.27 flavour, used for every later version too).
        note: What a user choosing it should know (kernel fixes it has or lacks).
    """

    lean: str
    repl_commit: str
    repl_date: str
    mathlib_commit: str
    aesop_commit: str
    satp_layout: str = "satp-v2"
    note: str = ""

    @property
    def mathlib(self) -> str:
        """Mathlib's tag (the same name as the Lean release)."""
        return self.lean

    @property
    def toolchain(self) -> str:
        """The ``lean-toolchain`` line."""
        return f"leanprover/lean4:{self.lean}"


_SOFT = "lacks the kernel fixes of lean4#14484 (v4.32.1) and #14576 (v4.32.2)"

#: Every version with a REPL tag and a Mathlib tag on record (see the module docstring for the source).
RELEASES: tuple[LeanRelease, ...] = (
    LeanRelease("v4.21.0", "ebeaf409fc93d64d5a52652c87e74bfb64805a66", "2025-06-30",
                "308445d7985027f538e281e18df29ca16ede2ba3", "8ff27701d003456fd59f13a9212431239d902aef", note=_SOFT),
    LeanRelease("v4.22.0", "4d1b3e126441016fbc3d8570b15afb87825feaa9", "2025-08-14",
                "79e94a093aff4a60fb1b1f92d9681e407124c2ca", "1256a18522728c2eeed6109b02dd2b8f207a2a3c", note=_SOFT),
    LeanRelease("v4.24.0", "8fff8552292860d349b459d6a811e6915671dc0d", "2025-10-14",
                "f897ebcf72cd16f89ab4577d0c826cd14afaafc7", "725ac8cd67acd70a7beaf47c3725e23484c1ef50", note=_SOFT),
    LeanRelease("v4.25.0", "c648c7bb2286503750bfa4d0aea283cc04c14f44", "2025-11-17",
                "1ccd71f89cbbd82ae7d097723ce1722ca7b01c33", "26e4c7c0e63eb3e6cce3cf7faba27b8526ea8349", note=_SOFT),
    LeanRelease("v4.25.1", "218ce6c6dbbe37625e4b89f2c478e2a5379ee73b", "2025-11-18",
                "0df2e3c2047ada0d7a2e33dbc6ba2788a44a6062", "a2e4d9e9aebdbdce1ce6b6f0a19dd49e0120c990", note=_SOFT),
    LeanRelease("v4.26.0", "a9a6f5bac483d65d08f6226e0ed653f03c479fb7", "2025-12-13",
                "2df2f0150c275ad53cb3c90f7c98ec15a56a1a67", "2f6d238744c4cb07fdc91240feaf5d4221a27931",
                satp_layout="satp-v2-181", note=f"SATP's published figures; {_SOFT}"),
    LeanRelease("v4.27.0", "0e9e6e2962ab0a51440513d9ee028c8aa66bb53b", "2026-01-24",
                "a3a10db0e9d66acbebf76c5e6a135066525ac900", "cb837cc26236ada03c81837bebe0acd9c70ced7d",
                note=f"the default before 2026-12; {_SOFT}"),
    LeanRelease("v4.28.0", "527590ce2b9f3b5c4a9a1031e5b8fcfb909b9a4a", "2026-02-17",
                "8f9d9cff6bd728b17a24e163c9402775d9e6a365", "f642a64c76df8ba9cb53dba3b919425a0c2aeaf1",
                note=f"first with `leanchecker` in the toolchain; {_SOFT}"),
    LeanRelease("v4.29.0", "495777293cb9cc3c62787a8c11393da1a9dd9505", "2026-03-31",
                "8a178386ffc0f5fef0b77738bb5449d50efeea95", "7152850e7b216a0d409701617721b6e469d34bf6",
                note=f"native computations become per-declaration axioms; {_SOFT}"),
    LeanRelease("v4.30.0", "dde7dd4397951755f1f6c2b4b3a83a26911d63ad", "2026-05-26",
                "c5ea00351c28e24afc9f0f84379aa41082b1188f", "558915ae105bfd8074e22d597613d1961822adc2", note=_SOFT),
    LeanRelease("v4.31.0", "0cc60263319308000bbaa5354427f775fe3dc7d0", "2026-06-15",
                "fabf563a7c95a166b8d7b6efca11c8b4dc9d911f", "e3cb2f741431ce31bf73549fb52316a57368b06f", note=_SOFT),
    LeanRelease("v4.32.0", "68a3b3a059787a7db44fb1e6281e4a657efee470", "2026-07-13",
                "81a5d257c8e410db227a6665ed08f64fea08e997", "a7dbf0c63b694e47f425f3dcddbc0e178bb432d3",
                note=f"the newest stable pair on record; {_SOFT}"),
    LeanRelease("v4.33.0-rc2", "8948401ab4924499421c94b7facdfca5ff27d81d", "2026-08-03",
                "51e6992efd06126df61a496bebf8f49482a4e129", "7db8190085343afde2f5d2cdcc9bac719b6ec02c",
                note="the default: has the #14484 and #14576 fixes and the v4.33 kernel hardening"),
)  # fmt: skip

#: The version ``lean-gym setup`` builds when none is named (the reason is in the module docstring).
DEFAULT_LEAN_VERSION = "v4.33.0-rc2"

#: First release whose ``#print axioms`` names native computations as ``‹decl›._native.‹tactic›.ax_…``
#: (lean4 PR #12217, RFC #12216, listed in the v4.29.0 release notes; the PR merged on 2026-01-28, before
#: the REPL's v4.29.0-rc1 tag of 2026-02-18). Older releases print ``Lean.ofReduceBool``.
NATIVE_AUX_AXIOMS_SINCE = "v4.29.0-rc1"

_VERSION_RE = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)(?:-rc(\d+))?$")


def parse_version(text: str) -> tuple[int, int, int, int]:
    """``"v4.33.0-rc2"`` as a sortable tuple (a release sorts after its release candidates).

    Also reads a ``lean-toolchain`` line (``leanprover/lean4:v4.27.0``).

    Raises:
        ConfigError: for text that is not ``vX.Y.Z`` or ``vX.Y.Z-rcN``.
    """
    tail = text.strip().rsplit(":", 1)[-1]
    m = _VERSION_RE.match(tail)
    if m is None:
        raise ConfigError(
            f"not a Lean version: {text!r} (expected vX.Y.Z or vX.Y.Z-rcN, e.g. {DEFAULT_LEAN_VERSION})"
        )
    rc = int(m.group(4)) if m.group(4) is not None else 1 << 30
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), rc


def at_least(version: str | None, floor: str) -> bool | None:
    """True when ``version`` is ``floor`` or newer; ``None`` when ``version`` is unknown or unreadable."""
    if not version:
        return None
    try:
        return parse_version(version) >= parse_version(floor)
    except ConfigError:
        return None


def supported_versions() -> tuple[str, ...]:
    """The versions of :data:`RELEASES`, oldest first."""
    return tuple(r.lean for r in RELEASES)


def release(version: str) -> LeanRelease:
    """The release ``version`` names (``"4.26.0"`` is read as ``"v4.26.0"``).

    Raises:
        ConfigError: for a version without a REPL tag and a Mathlib tag on record, in one line that lists
            the versions that have both (and a "did you mean").
    """
    key = version.strip()
    if key and not key.startswith("v"):
        key = "v" + key
    for r in RELEASES:
        if r.lean == key:
            return r
    names = supported_versions()
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else ""
    raise ConfigError(
        f"Lean {version!r} has no REPL tag and Mathlib tag on record{hint} "
        f"(versions with both: {', '.join(names)}; default {DEFAULT_LEAN_VERSION})"
    )
