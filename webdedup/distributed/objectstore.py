"""Object storage for ``webdedup daft``: ``s3://`` inputs and output through Daft's IO config.

``webdedup daft 's3://bucket/pages/*.parquet' --out s3://bucket/assignments/`` reads and writes
S3 or any S3-compatible store (MinIO, Ceph, R2...). Where to connect and as whom comes from the
command line and the usual AWS environment variables (read here, never logged):

========================  ==========================  ==========================================
option                    environment                 meaning
========================  ==========================  ==========================================
``--s3-endpoint URL``     ``AWS_ENDPOINT_URL``        an S3-compatible server (default: AWS)
``--s3-region NAME``      ``AWS_REGION``,             the bucket's region
                          ``AWS_DEFAULT_REGION``
``--s3-anonymous``                                    public buckets: no credentials, unsigned
(none: secrets stay out   ``AWS_ACCESS_KEY_ID``,      the key; without one (and not anonymous)
of the process list)      ``AWS_SECRET_ACCESS_KEY``,  Daft's own chain looks further: profiles
                          ``AWS_SESSION_TOKEN``       in ``~/.aws``, then the instance metadata
========================  ==========================  ==========================================

Daft reads and writes the Parquet files (its ``IOConfig``); the few small files of the output
(the manifest) are written with pyarrow's S3 filesystem, configured the same way. An S3
output cannot be renamed into place: its files are written straight under ``--out``, the
manifest last, so an output without a manifest is incomplete (``webdedup db --assignments``
refuses it), and a failed run removes what it wrote.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError

#: URL schemes read and written through the object store (the others are local paths).
SCHEMES = ("s3", "s3a")


def is_remote(path: str) -> bool:
    """True for an ``s3://`` (or ``s3a://``) URL, False for a local path."""
    return urlsplit(path).scheme.lower() in SCHEMES


@dataclass(frozen=True)
class ObjectStore:
    """Where and how to reach S3 (or an S3-compatible server)."""

    endpoint: str | None = None
    region: str | None = None
    anonymous: bool = False
    key_id: str | None = None
    secret: str | None = None
    session_token: str | None = None

    @classmethod
    def from_options(
        cls,
        endpoint: str | None = None,
        region: str | None = None,
        anonymous: bool = False,
        environ: Mapping[str, str] | None = None,
    ) -> ObjectStore:
        """Options first, then the AWS environment variables (see the module's table)."""
        env = os.environ if environ is None else environ
        endpoint = endpoint or env.get("AWS_ENDPOINT_URL_S3") or env.get("AWS_ENDPOINT_URL")
        if endpoint and urlsplit(endpoint).scheme not in ("http", "https"):
            raise ConfigError(
                f"--s3-endpoint takes a URL such as http://127.0.0.1:9000, got {endpoint!r}"
            )
        key_id, secret = env.get("AWS_ACCESS_KEY_ID"), env.get("AWS_SECRET_ACCESS_KEY")
        if bool(key_id) != bool(secret) and not anonymous:
            raise ConfigError(
                "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together; set both (or "
                "neither, to use ~/.aws or the instance's role; or --s3-anonymous)"
            )
        return cls(
            endpoint=endpoint or None,
            region=region or env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or None,
            anonymous=anonymous,
            key_id=None if anonymous else key_id or None,
            secret=None if anonymous else secret or None,
            session_token=None if anonymous else env.get("AWS_SESSION_TOKEN") or None,
        )

    def io_config(self) -> Any:
        """Daft's ``IOConfig`` for these settings."""
        from daft.io import IOConfig, S3Config

        s3 = S3Config(
            endpoint_url=self.endpoint,
            region_name=self.region,
            key_id=self.key_id,
            access_key=self.secret,
            session_token=self.session_token,
            anonymous=self.anonymous or None,
            use_ssl=None if self.endpoint is None else self.endpoint.startswith("https:"),
        )
        return IOConfig(s3=s3)

    def filesystem(self) -> Any:
        """pyarrow's ``S3FileSystem`` for the same settings (for the output's small files)."""
        from pyarrow import fs

        options: dict[str, Any] = {"anonymous": self.anonymous}
        if self.endpoint:
            parts = urlsplit(self.endpoint)
            options["endpoint_override"] = parts.netloc + parts.path.rstrip("/")
            options["scheme"] = parts.scheme
        if self.region:
            options["region"] = self.region
        if self.key_id and self.secret:
            options.update(access_key=self.key_id, secret_key=self.secret)
            if self.session_token:
                options["session_token"] = self.session_token
        return fs.S3FileSystem(**options)


def bucket_path(url: str) -> str:
    """``s3://bucket/a/b/`` as pyarrow names it: ``bucket/a/b``."""
    parts = urlsplit(url)
    return (parts.netloc + parts.path).rstrip("/")


__all__ = ["SCHEMES", "ObjectStore", "bucket_path", "is_remote"]
