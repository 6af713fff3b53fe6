"""``LeanText`` is gymnasium's ``Text`` over its charset, also when copied and pickled, at a small cost.

Spaces over one charset share the tables gymnasium derives from it (lean_gym/envs/spaces.py): these tests
hold a shared space to the ``Text`` gymnasium builds, and its copies and pickles to the space.
"""

from __future__ import annotations

import copy
import pickle
import string

import gymnasium as gym
import pytest
from gymnasium.spaces import Text
from gymnasium.vector.utils import batch_space

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.envs.spaces import LEAN_CHARSET, LeanText

TABLES = ("character_set", "character_list", "characters")


def _same_as_gymnasium(space: LeanText, charset: frozenset[str] | str) -> None:
    ref = Text(space.max_length, min_length=space.min_length, charset=charset)
    assert space == ref
    for name in TABLES:
        assert getattr(space, name) == getattr(ref, name), name
    for ch in ("a", "ℝ", "✝", "\n") if charset is LEAN_CHARSET else ref.character_list[:3]:
        assert space.character_index(ch) == ref.character_index(ch)
    space.seed(7)
    ref.seed(7)
    assert [space.sample() for _ in range(3)] == [ref.sample() for _ in range(3)]


@pytest.mark.parametrize(
    "charset", [LEAN_CHARSET, frozenset("xyz⊢"), "ba", string.digits], ids=["lean", "small", "str", "digits"]
)
def test_a_lean_text_is_gymnasiums_text_over_its_charset(charset: frozenset[str] | str) -> None:
    space = LeanText(50, min_length=2, charset=charset)  # type: ignore[arg-type]
    _same_as_gymnasium(space, charset)
    ok = space.character_list[0] * 2
    assert space.contains(ok) and not space.contains(ok[:1]) and not space.contains(ok * 26)  # 2 to 50 chars


def test_copies_and_pickles_are_the_space_with_a_generator_of_their_own() -> None:
    space = LeanText(64, seed=3)
    for twin in (copy.deepcopy(space), pickle.loads(pickle.dumps(space)), copy.copy(space)):
        assert twin == space and repr(twin) == repr(space)
        _same_as_gymnasium(twin, LEAN_CHARSET)
    space.seed(5)
    twin = copy.deepcopy(space)
    assert twin.np_random is not space.np_random
    assert [twin.sample() for _ in range(3)] == [space.sample() for _ in range(3)]  # the same state, copied
    before = space.np_random.bit_generator.state
    twin.sample()  # advancing the copy leaves the original's generator where it was
    assert space.np_random.bit_generator.state == before != twin.np_random.bit_generator.state


def test_a_bad_charset_is_refused_as_gymnasium_refuses_it() -> None:
    with pytest.raises(ValueError, match="single character"):
        LeanText(5, charset=frozenset({"ab", "c"}))


def test_the_observation_space_pickles_small_and_batches_to_equal_spaces() -> None:
    env = gym.make("LeanAesop-v0", backend="sim")
    space = env.observation_space
    data = pickle.dumps(space)
    # the charset's tables (a 4,578-entry index of numpy ints per text space) are not in the pickle: an async
    # vector env sends every sub-env's spaces through a pipe; the charset itself travels once
    assert len(data) < 100_000, len(data)
    assert pickle.loads(data) == space
    batched = batch_space(space, 3)
    assert batched == batch_space(space, 3)
    assert batched["goal"][0] == space["goal"] and len(batched["goal"]) == 3
    env.close()


def test_nothing_is_shared_where_gymnasium_derives_more_from_the_charset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a later gymnasium that derives another attribute from the charset: spaces are then built in full
    from lean_gym.envs import spaces

    real = Text.__init__

    def init(self: Text, *args: object, charset: frozenset[str] | str = "ab", **kw: object) -> None:
        real(self, *args, charset=charset, **kw)  # type: ignore[arg-type]
        self._alphabet_size = len(set(charset))  # type: ignore[attr-defined]

    monkeypatch.setattr(Text, "__init__", init)
    monkeypatch.setattr(spaces, "_CHAR_TABLES", {})
    space = LeanText(5, charset=frozenset("pqr"))
    assert space._alphabet_size == 3  # type: ignore[attr-defined]
    assert copy.deepcopy(space)._alphabet_size == pickle.loads(pickle.dumps(space))._alphabet_size == 3  # type: ignore[attr-defined]
    _same_as_gymnasium(space, frozenset("pqr"))
