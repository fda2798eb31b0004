"""Test helpers that are real servers (shipped so UI tests and benchmarks can start them)."""
