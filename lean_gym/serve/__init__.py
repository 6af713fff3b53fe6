"""lean-gym's HTTP services (the ``serve`` extra: ``pip install -e '.[serve]'``).

* :mod:`lean_gym.serve.app`: what every service shares: :class:`~lean_gym.serve.app.ServeConfig` (listen on
  ``127.0.0.1`` by default, bounded bodies, an optional API key), JSON errors, the app factory
  :func:`~lean_gym.serve.app.make_app`, :func:`~lean_gym.serve.app.bind` and :func:`~lean_gym.serve.app.serve`.
* :mod:`lean_gym.serve.policy`: a trained aesop policy behind SATP's ``/health`` + ``/infer`` API
  (``lean-gym serve-policy``), so that SATP's Lean tactic ``satp`` runs a lean-gym policy.

Importing this package imports neither Starlette nor uvicorn; its modules do.
"""
