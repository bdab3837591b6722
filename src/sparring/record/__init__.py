"""Recording, replay and the episode viewer.

Record episodes to Parquet (:class:`Recorder`, :func:`record_episodes`), read
them back (:func:`load` gives a pyarrow Table, :class:`Recording` gives
episodes as arrays), replay them in the terminal, as GIF/MP4 or as a
self-contained HTML page, export text turns as JSONL, and fork an episode at
any tick.
"""

from sparring.record.export import export_jsonl
from sparring.record.fork import fork
from sparring.record.reader import Episode, Recording, load
from sparring.record.recorder import Recorder, record_episodes
from sparring.record.schema import SCHEMA_VERSION, RecordingError
from sparring.record.terminal import print_episode, replay_terminal
from sparring.record.video import write_gif, write_mp4
from sparring.record.viewer import write_html

__all__ = [
    "SCHEMA_VERSION",
    "Episode",
    "Recorder",
    "Recording",
    "RecordingError",
    "export_jsonl",
    "fork",
    "load",
    "print_episode",
    "record_episodes",
    "replay_terminal",
    "write_gif",
    "write_html",
    "write_mp4",
]
