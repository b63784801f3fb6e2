"""Shared plumbing: staff accounts (sign-in throttling, second factor, short sessions,
re-authentication) and the sign-in log."""
