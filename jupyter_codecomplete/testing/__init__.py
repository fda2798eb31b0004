"""The test harness, shipped so that UI tests and benchmarks can use it too: real servers, a real client.

``server`` (a tornado app on loopback ports) → ``scripted`` (the scripted model-server engine) →
``openai_upstream`` and ``providers`` (each provider's wire format); ``fake_hub`` (the Hugging Face
Hub's file routes); ``wsclient`` (the completion websocket's client); ``processes`` (servers as child
processes). See docs/architecture.md, "The test harness".
"""
