"""Reference agents for lean-gym (import name ``lean_gym_agents``; the folder is ``agents/``)."""
