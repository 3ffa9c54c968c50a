"""Helpers shared by the tests: loopback servers and builders of wire-format streams."""
