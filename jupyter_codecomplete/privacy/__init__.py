"""What must not leave the machine: the gate every request's context passes before a prompt is
built (exclusion by path, the model's channel policy, redaction of secrets).

- :mod:`.exclude`: ``.codecompleteignore`` files, the administrator's and the default exclusions;
- :mod:`.rules`: the secret formats (detect-secrets' plugins as data, and our own four rules);
- :mod:`.redact`: secrets become placeholders, one per value within a request;
- :mod:`.gate`: the channels, each model's policy, and :class:`Gate` itself.

See ``docs/privacy.md`` for what is sent where.
"""

from .exclude import DEFAULT_EXCLUDE, IGNORE_FILE, Excluded, Exclusions
from .gate import CHANNELS, ChannelPolicy, Gate, GateReport, GuardedEdit, channel_policy
from .redact import PLACEHOLDER_START, OffsetMap, Redaction, Redactor
from .rules import Finding, environment_secrets, find_all, secret_name

__all__ = [
    "CHANNELS",
    "DEFAULT_EXCLUDE",
    "IGNORE_FILE",
    "PLACEHOLDER_START",
    "ChannelPolicy",
    "Excluded",
    "Exclusions",
    "Finding",
    "Gate",
    "GateReport",
    "GuardedEdit",
    "OffsetMap",
    "Redaction",
    "Redactor",
    "channel_policy",
    "environment_secrets",
    "find_all",
    "secret_name",
]
