import Mathlib
import Aesop

/-! The smoke check `lean-gym doctor` runs once everything is built. -/

theorem lean_gym_smoke (a b : ℕ) : a + b = b + a := by
  omega
