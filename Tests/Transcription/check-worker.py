"""Checks the speech worker (data/voicememo-transcriber) against the real engine.

Run by the engine's interpreter, as `make test` does:

    .build/transcription-engine/bin/python3 Tests/Transcription/check-worker.py

Speech with known words comes from Debian's pocketsphinx-testdata (five LibriVox clips and
their reference transcription). Every check can fail; each prints what it measured. Exits
1 if any failed.
"""

import ctypes
import json
import os
import platform
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
import wave

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKER = os.path.join(ROOT, "data", "voicememo-transcriber")
CLIPS = "/usr/share/pocketsphinx/test/data/librivox"
# The rate the daemon records at: the worker resamples what it reads.
MEMO_RATE = 48000
# How long any one answer may take before the worker is taken to hang.
ANSWER_SECONDS = 60
SCHED_IDLE = 5
IOPRIO_GET = {"x86_64": 252, "i686": 290, "aarch64": 31, "riscv64": 31, "armv7l": 315, "ppc64le": 274, "s390x": 283}
IOPRIO_CLASS_IDLE = 3

failures = []


def check(condition, what, detail=""):
    """Records one check's outcome and says it."""
    print(("ok      " if condition else "FAILED  ") + what + (f": {detail}" if detail else ""))
    if not condition:
        failures.append(what)
    return condition


class Clip:
    """One LibriVox clip: its id, the words said, its samples (floats, its own rate)."""

    def __init__(self, identifier, words):
        self.id = identifier
        self.words = words
        self.path = os.path.join(CLIPS, identifier + ".wav")
        with wave.open(self.path) as file:
            assert file.getsampwidth() == 2 and file.getnchannels() == 1, f"{self.path} is 16-bit mono"
            self.rate = file.getframerate()
            self.samples = np.frombuffer(file.readframes(file.getnframes()), dtype="<i2").astype(np.float64) / 32768

    @property
    def duration(self):
        return len(self.samples) / self.rate

    @property
    def onset(self):
        """Where speech starts, in seconds: the first 10 ms whose RMS level reaches -35 dBFS
        (the clips' room noise stays below -50), as the Swift tests' SpeechClip measures it."""
        window = self.rate // 100
        for start in range(0, len(self.samples) - window, window):
            rms = np.sqrt(np.mean(self.samples[start : start + window] ** 2))
            if 20 * np.log10(max(rms, 1e-9)) >= -35:
                return start / self.rate
        return 0.0


def clips():
    """The five clips in the reference's order ("<s> words </s> (id)" per line)."""
    try:
        lines = open(os.path.join(CLIPS, "transcription"), encoding="utf-8").read().splitlines()
    except FileNotFoundError:
        sys.exit(f"{CLIPS}/transcription is missing: install pocketsphinx-testdata ('make test-deps')")
    result = []
    for line in lines:
        match = re.match(r"(.*)\(([^()]+)\)\s*$", line)
        if match:
            words = [word for word in match.group(1).split() if word not in ("<s>", "</s>")]
            result.append(Clip(match.group(2), words))
    return result


def normalised(text):
    """Words as the word error rate counts them: lower case, no punctuation, hyphens as spaces."""
    text = text.lower().replace("-", " ")
    return re.sub(r"[^\w' ]+", " ", text).split()


def word_errors(reference, hypothesis):
    """Word-level edit distance: substitutions, insertions and deletions."""
    previous = list(range(len(hypothesis) + 1))
    for row, word in enumerate(reference, 1):
        current = [row] + [0] * len(hypothesis)
        for column, heard in enumerate(hypothesis, 1):
            current[column] = min(previous[column - 1] + (word != heard), previous[column] + 1, current[column - 1] + 1)
        previous = current
    return previous[-1]


def resampled(samples, rate, target):
    """`samples` at `target` Hz, linearly interpolated."""
    if rate == target:
        return samples
    times = np.arange(int(len(samples) * target / rate)) * (rate / target)
    return np.interp(times, np.arange(len(samples)), samples)


def write_wave(path, samples, rate):
    """Writes `samples` (floats) as a 16-bit mono WAV file."""
    with wave.open(path, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes((np.clip(samples, -1, 32767 / 32768) * 32768).astype("<i2").tobytes())


class Worker:
    """The worker as the daemon runs it: paths in, JSON lines out."""

    def __init__(self, model="tiny.en"):
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [sys.executable, WORKER, "--model", model],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            encoding="utf-8",
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, path):
        self.process.stdin.write(path + "\n")
        self.process.stdin.flush()

    def answer(self):
        """The next message, or None once the worker's output has ended."""
        try:
            line = self.lines.get(timeout=ANSWER_SECONDS)
        except queue.Empty:
            self.process.kill()
            raise AssertionError(f"the worker said nothing for {ANSWER_SECONDS} s")
        if line is None:
            return None
        return decode(line)

    def until_finished(self, path):
        """The segments for `path` and the message that ends it (done or failed)."""
        segments = []
        while True:
            message = self.answer()
            if message is None:
                raise AssertionError(f"the worker ended while transcribing {path}")
            if message.get("path") != path:
                raise AssertionError(f"an answer about another path while transcribing {path}: {message}")
            if message["event"] == "segment":
                segments.append(message)
            elif message["event"] in ("done", "failed"):
                return segments, message
            else:
                raise AssertionError(f"an unexpected event while transcribing {path}: {message}")

    def peak_memory(self):
        """The worker's peak resident memory so far, in MiB."""
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def close(self):
        self.process.stdin.close()
        rest = []
        while (message := self.answer()) is not None:
            rest.append(message)
        return self.process.wait(timeout=ANSWER_SECONDS), rest


# The protocol's fields whose values are numbers, and the one that is a JSON object.
NUMBERS = {"start", "end", "duration"}
ESCAPES = {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}


def decode(line):
    """One line of the worker's protocol as a dict ("event" and each field), read as strictly
    as the daemon reads it (WorkerMessage): a field without "=" or an unknown escape fails."""
    if not line.endswith("\n"):
        raise AssertionError(f"the worker wrote a line without its line feed: {line!r}")
    event, *fields = line[:-1].split("\t")
    if not event or "=" in event:
        raise AssertionError(f"the worker wrote a line without an event: {line!r}")
    message = {"event": event}
    for field in fields:
        key, equals, raw = field.partition("=")
        if not equals or re.search(r"\\([^\\tnr]|$)", raw.replace("\\\\", "")):
            raise AssertionError(f"the worker wrote a field the protocol does not have: {field!r} in {line!r}")
        value = re.sub(r"\\(.)", lambda match: ESCAPES[match.group(1)], raw)
        message[key] = float(value) if key in NUMBERS else json.loads(value) if key == "priority" else value
    return message


def scheduling_policy(pid):
    """The policy the kernel runs `pid` with: field 41 of /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[41 - 3])


def io_class(pid):
    """The I/O scheduling class of `pid` (ioprio_get), or None where its number is unknown."""
    number = IOPRIO_GET.get(platform.machine())
    if number is None:
        return None
    libc = ctypes.CDLL(None, use_errno=True)
    value = libc.syscall(number, 1, pid)  # IOPRIO_WHO_PROCESS
    return value >> 13 if value >= 0 else None


def probe(model):
    """The worker's --probe: its exit status, its one line decoded, and how long it took."""
    started = time.monotonic()
    run = subprocess.run([sys.executable, WORKER, "--probe", "--model", model], capture_output=True, encoding="utf-8")
    lines = run.stdout.splitlines()
    return run.returncode, (json.loads(lines[0]) if len(lines) == 1 else lines), time.monotonic() - started


def check_probe():
    """--probe finds the engine quickly and fails clearly for a model that is not there."""
    import faster_whisper

    status, answer, seconds = probe("tiny.en")
    check(
        status == 0
        and isinstance(answer, dict)
        and answer.get("engine") == "faster-whisper"
        and answer.get("version") == faster_whisper.__version__
        and answer.get("model") == "tiny.en"
        and os.path.isfile(os.path.join(answer.get("modelPath", ""), "model.bin")),
        "--probe finds the engine and the bundled tiny.en",
        f"{answer} in {seconds:.2f} s",
    )
    check(seconds < 3, "--probe is quick (no model loaded)", f"{seconds:.2f} s")
    with tempfile.TemporaryDirectory() as empty:
        status, answer, _ = probe(empty)
        check(
            status == 1 and isinstance(answer, dict) and empty in answer.get("failed", "") and "model.bin" in answer["failed"],
            "--probe of a directory without a model fails, naming it",
            str(answer),
        )
    status, answer, _ = probe("/nonexistent/model")
    check(
        status == 1 and isinstance(answer, dict) and "does not exist" in answer.get("failed", ""),
        "--probe of a missing model directory fails, saying so",
        str(answer),
    )


def check_unloadable_model():
    """A worker whose model does not load says why and exits 1."""
    worker = Worker(model="/nonexistent/model")
    message = worker.answer()
    status, rest = worker.close()
    check(
        message is not None and message.get("event") == "failed" and "/nonexistent/model" in message.get("reason", "")
        and status == 1 and not rest,
        "a model that does not load: one failed with the reason, exit 1",
        f"{message}, exit {status}",
    )


def check_worker(speech, directory):
    """One worker, as the daemon uses one: priorities, transcripts, failures, the end."""
    worker = Worker()
    ready = worker.answer()
    load_seconds = time.monotonic() - worker.started
    check(
        ready is not None
        and ready.get("event") == "ready"
        and ready.get("engine") == "faster-whisper"
        and ready.get("model") == "tiny.en"
        and bool(ready.get("modelPath")),
        "the worker's first answer is ready",
        f"{ready} after {load_seconds:.2f} s",
    )
    if not ready or ready.get("event") != "ready":
        worker.process.kill()
        return
    pid = worker.process.pid
    check(scheduling_policy(pid) == SCHED_IDLE, "the worker runs SCHED_IDLE", f"policy {scheduling_policy(pid)}")
    io = io_class(pid)
    if io is not None:
        check(io == IOPRIO_CLASS_IDLE, "the worker's I/O class is idle", f"class {io}")
    check(ready.get("priority") == {"cpu": "idle", "io": "idle"}, "ready reports the idle priorities", str(ready.get("priority")))

    # The five clips, one after the other in one worker.
    started = time.monotonic()
    heard = []
    for clip in speech:
        worker.send(clip.path)
    in_order = True
    for clip in speech:
        segments, end = worker.until_finished(clip.path)
        in_order &= end["event"] == "done" and abs(end.get("duration", -1) - clip.duration) < 0.05
        in_order &= all(0 <= s["start"] <= s["end"] <= clip.duration + 0.05 and s["text"] == s["text"].strip() for s in segments)
        in_order &= [s["start"] for s in segments] == sorted(s["start"] for s in segments) and bool(segments)
        heard.append(" ".join(s["text"] for s in segments))
    seconds = time.monotonic() - started
    audio = sum(clip.duration for clip in speech)
    check(in_order, "each clip: its segments in order within it, then done with its duration")
    reference = [word for clip in speech for word in clip.words]
    errors = sum(word_errors(clip.words, normalised(text)) for clip, text in zip(speech, heard))
    rate = errors / len(reference)
    check(rate <= 0.10, "word error rate over the five clips ≤ 10 %", f"{rate:.1%} ({errors} of {len(reference)} words)")
    for clip, text in zip(speech, heard):
        print(f"        {clip.id}: {text}")
    print(f"        speed: {audio:.1f} s of audio in {seconds:.2f} s, {audio / seconds:.1f}× real time")

    # A missing file and one that is not audio: each fails, and the worker goes on.
    missing = os.path.join(directory, "missing.ogg")
    text_file = os.path.join(directory, "notes.opus")
    with open(text_file, "w") as file:
        file.write("not audio at all\n" * 100)
    memo = os.path.join(directory, "Réunion Müller, 3 clips.wav")
    layout = write_memo(speech[:3], [3, 3], memo)
    for path in (missing, text_file, memo):
        worker.send(path)
    for path in (missing, text_file):
        segments, end = worker.until_finished(path)
        check(
            end["event"] == "failed" and not segments and bool(end.get("reason")),
            f"{os.path.basename(path)} answers failed",
            end.get("reason", str(end)),
        )
    segments, end = worker.until_finished(memo)
    check(end["event"] == "done", "the worker goes on to the next path after failures (and echoes a non-ASCII path)", str(end))
    check(len(segments) >= 3, "the three-clip memo has at least 3 segments", f"{len(segments)}")
    check_onsets(segments, layout, 0.2, "three clips 3 s apart")

    # A memo of several pieces: the times are of the whole file.
    long_memo = os.path.join(directory, "long.wav")
    repeats = 14
    layout = write_memo([speech[index % 5] for index in range(repeats)], [1 + index % 3 * 0.5 for index in range(repeats)], long_memo)
    started = time.monotonic()
    worker.send(long_memo)
    segments, end = worker.until_finished(long_memo)
    seconds = time.monotonic() - started
    check(end["event"] == "done" and abs(end["duration"] - layout[-1][2]) < 0.05, "a memo of several pieces is done", str(end))
    check_onsets(segments, layout, 0.5, f"a {layout[-1][2]:.0f} s memo, 1 to 2 s between clips")
    print(f"        speed: {layout[-1][2]:.1f} s of audio in {seconds:.2f} s, {layout[-1][2] / seconds:.1f}× real time")
    peak = worker.peak_memory()
    check(peak <= 400, "the worker's peak resident memory stays within 400 MiB", f"{peak:.0f} MiB")
    status, rest = worker.close()
    check(status == 0 and not rest, "at the end of its input the worker exits 0, saying nothing more", f"exit {status}, {rest}")
    print(f"        model load (start to ready): {load_seconds:.2f} s")


def write_memo(speech, gaps, path):
    """The clips with the gaps (seconds of silence) between them, at the daemon's rate; for
    each clip, where it begins in the file, where its speech starts, and where it ends."""
    parts, layout, position = [], [], 0.0
    for index, clip in enumerate(speech):
        if index:
            parts.append(np.zeros(int(gaps[index - 1] * MEMO_RATE)))
            position += int(gaps[index - 1] * MEMO_RATE) / MEMO_RATE
        samples = resampled(clip.samples, clip.rate, MEMO_RATE)
        parts.append(samples)
        layout.append((position, position + clip.onset, position + len(samples) / MEMO_RATE))
        position += len(samples) / MEMO_RATE
    write_wave(path, np.concatenate(parts), MEMO_RATE)
    return layout


def check_onsets(segments, layout, within, what):
    """Each clip's first segment starts within `within` seconds of the clip's speech."""
    errors = []
    for index, (begin, onset, end) in enumerate(layout):
        # The segments of a clip: those whose middle lies in it or in the silence after it.
        following = layout[index + 1][0] if index + 1 < len(layout) else float("inf")
        own = [s for s in segments if begin <= (s["start"] + s["end"]) / 2 < following]
        errors.append(own[0]["start"] - onset if own else float("inf"))
    worst = max(errors, key=abs)
    check(
        abs(worst) <= within,
        f"{what}: each clip's first segment starts within {within} s of its speech",
        f"{len(layout)} clips, {len(segments)} segments; off by " + " ".join(f"{error:+.3f}" for error in errors),
    )


def main():
    """Runs every check; the exit status says whether all passed."""
    started = time.monotonic()
    speech = clips()
    check(len(speech) == 5, "the reference names five clips", str([clip.id for clip in speech]))
    check_probe()
    check_unloadable_model()
    with tempfile.TemporaryDirectory() as directory:
        try:
            check_worker(speech, directory)
        except AssertionError as error:
            check(False, "the worker answers as the protocol says", str(error))
    print(f"{len(failures)} failed, in {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
