"""Episode videos from the env's ``render_rgb`` frames: GIF (Pillow) and MP4 (imageio + ffmpeg)."""

from __future__ import annotations

import importlib

import numpy as np

from sparring.kit.atomic import atomic_path
from sparring.record.reader import Recording


def episode_frames(rec: Recording, episode: int) -> list[np.ndarray]:
    """One RGB image [H, W, 3] uint8 per recorded state of ``episode`` (the final one included)."""
    cls = rec.env_cls
    if not hasattr(cls, "render_rgb"):
        raise ValueError(
            f"env {cls.name!r} has no render_rgb(s, cfg), so it cannot be written as a video; "
            f"use the HTML viewer (--html) or the terminal replay instead"
        )
    ep = rec.episode(episode)
    frames = [np.asarray(cls.render_rgb(s, rec.config)) for s in ep.states]
    shape = frames[0].shape
    if frames[0].dtype != np.uint8 or len(shape) != 3 or shape[2] != 3:
        raise ValueError(f"env {cls.name!r}: render_rgb must return uint8 [H, W, 3], got {frames[0].dtype} {shape}")
    return frames


def _need(module: str, what: str):
    """Import ``module`` (a [viz] extra), or say how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"{what} needs the [viz] extra: pip install 'sparring[viz]' (missing {module!r})") from None


def _pad(frame: np.ndarray, block: int) -> np.ndarray:
    """Pad to a multiple of ``block`` pixels: H.264 encoders want even (ideally 16-aligned) sizes."""
    h, w = frame.shape[:2]
    return np.pad(frame, ((0, -h % block), (0, -w % block), (0, 0)))


def write_gif(rec: Recording, episode: int, out: str, fps: float = 10.0) -> str:
    """Write ``episode`` as an animated GIF at ``fps`` frames per second; returns ``out``."""
    image = _need("PIL.Image", "writing a GIF")
    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps}")
    images = [image.fromarray(f) for f in episode_frames(rec, episode)]

    with atomic_path(out) as tmp:
        images[0].save(
            tmp, format="GIF", save_all=True, append_images=images[1:], duration=int(round(1000 / fps)), loop=0
        )
    return out


def write_mp4(rec: Recording, episode: int, out: str, fps: float = 10.0) -> str:
    """Write ``episode`` as an H.264 MP4 at ``fps`` frames per second; returns ``out``."""
    imageio = _need("imageio.v2", "writing an MP4")
    _need("imageio_ffmpeg", "writing an MP4")
    if fps <= 0:
        raise ValueError(f"fps must be positive, got {fps}")
    frames = [_pad(f, 16) for f in episode_frames(rec, episode)]

    with atomic_path(out) as tmp:
        with imageio.get_writer(tmp, format="FFMPEG", fps=fps, codec="libx264", macro_block_size=16) as w:
            for f in frames:
                w.append_data(f)
    return out
