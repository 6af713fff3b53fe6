"""Which axioms a ``#print axioms`` list names, read the way each supported Lean version prints them.

Up to v4.28.0, a native computation (``native_decide``, ``decide +native``, ``bv_decide``) shows in
``#print axioms`` as ``Lean.ofReduceBool`` (with ``Lean.trustCompiler``). From v4.29.0 (lean4 PR #12217,
RFC #12216; release notes ``Manual/Releases/v4_29_0.lean``, "One Axiom per Native Computation") each
computation adds its own axiom, named by ``mkAuxDeclName (`_native ++ tacticName ++ `ax)`` inside the
declaration being elaborated (lean4 ``src/Lean/Meta/Native.lean``), i.e. ``‹decl›._native.‹tactic›.ax_‹n›…``
with ``‹tactic›`` one of ``native_decide``, ``decide`` (for ``decide +native``) or ``bv_decide``; recorded
outputs show ``….ax_1_1`` (e.g. ``count56._native.native_decide.ax_1_1``, ``addov_correct._native.bv_decide.ax_1_6``).

Such a name is only a name: a library could declare an axiom that looks like one. So an auxiliary axiom
counts as native only when its owner (the part before ``._native.``) is a declaration the *submission*
declares, its tactic segment is one of the three above, its suffix is ``ax`` and numbers, and the Lean that
printed it is v4.29.0-rc1 or newer (or unknown). Anything else is a non-standard axiom. The policy scan's
ban on ``axiom`` is what keeps a submission from declaring a look-alike itself.

Example:
    >>> native_owner("t._native.native_decide.ax_1_1")
    't'
    >>> native_owner("t._native.foo.ax_1_1") is None
    True
    >>> is_native_axiom("t._native.bv_decide.ax_1_6", declared={"t"}, lean_version="v4.33.0-rc2")
    True
    >>> is_native_axiom("t._native.bv_decide.ax_1_6", declared={"t"}, lean_version="v4.27.0")
    False
"""

from __future__ import annotations

import re
from collections.abc import Collection

from lean_gym.lean.versions import NATIVE_AUX_AXIOMS_SINCE, at_least

__all__ = [
    "NATIVE_AXIOMS",
    "NATIVE_TACTICS",
    "STANDARD_AXIOMS",
    "is_native_axiom",
    "native_owner",
]

#: The axioms a kernel-checked classical proof may use.
STANDARD_AXIOMS: frozenset[str] = frozenset({"propext", "Classical.choice", "Quot.sound"})
#: The fixed axioms native evaluation adds up to v4.28.0 (and still exist, deprecated, later).
NATIVE_AXIOMS: frozenset[str] = frozenset({"Lean.ofReduceBool", "Lean.ofReduceNat", "Lean.trustCompiler"})
#: The tactic segments ``nativeEqTrue`` is called with (``decide`` is ``decide +native``).
NATIVE_TACTICS: frozenset[str] = frozenset({"native_decide", "decide", "bv_decide"})

_AUX_RE = re.compile(r"^(?P<owner>.+?)\._native\.(?P<tactic>[A-Za-z_]+)\.ax(?:_\d+)+$")
# `private` declarations are named `_private.‹module›.‹n›.‹name›`; the REPL's commands have no module name
_PRIVATE_RE = re.compile(r"^_private\.(?:.+\.)?\d+\.(?P<name>.+)$")


def _plain(name: str) -> str:
    return name.replace("«", "").replace("»", "")


def _owner(name: str) -> tuple[str, bool] | None:
    m = _AUX_RE.match(_plain(name.strip()))
    if m is None or m.group("tactic") not in NATIVE_TACTICS:
        return None
    owner = m.group("owner")
    if "._native." in owner:  # a nested look-alike: `a._native.decide.ax_1._native.decide.ax_1`
        return None
    private = _PRIVATE_RE.match(owner)
    return (private.group("name"), True) if private else (owner, False)


def native_owner(name: str) -> str | None:
    """The declaration a v4.29+ native-computation axiom belongs to, or ``None`` when ``name`` is not one.

    ``name`` must be ``‹owner›._native.‹tactic›.ax_‹n›[_‹m›…]`` with ``‹tactic›`` in :data:`NATIVE_TACTICS`.
    The owner of a ``private`` declaration's axiom (``_private.‹module›.‹n›.‹name›``) is its own name.
    """
    found = _owner(name)
    return found[0] if found else None


def is_native_axiom(
    name: str,
    *,
    declared: Collection[str],
    declared_private: Collection[str] = (),
    lean_version: str | None = None,
) -> bool:
    """True when ``name`` is an axiom that native evaluation added for one of the ``declared`` names.

    Args:
        name: An axiom from ``#print axioms``.
        declared: The names of the declarations the submission itself declares.
        declared_private: Those it declares ``private``: only they own a ``_private.…`` axiom (a public
            declaration of the same name as a library's private one owns none of the library's axioms).
        lean_version: The Lean that printed the list (``None``: unknown, read as recent). On a version
            older than :data:`~lean_gym.lean.versions.NATIVE_AUX_AXIOMS_SINCE` only
            :data:`NATIVE_AXIOMS` are native: an auxiliary-looking name there came from somewhere else.
    """
    if name in NATIVE_AXIOMS:
        return True
    found = _owner(name)
    if found is None or at_least(lean_version, NATIVE_AUX_AXIOMS_SINCE) is False:
        return False
    owner, private = found
    return owner in {_plain(d) for d in (declared_private if private else declared)}
