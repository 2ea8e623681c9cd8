"""Photo decoding (vision.image_io via companion.services.decode_upload): limits checked on the
declared size before anything is decoded, formats, orientation, alpha, 16-bit, decode slots."""

from __future__ import annotations

import struct
import threading
import time
import zlib

import cv2
import numpy as np
import pytest

from companion import services
from vision import image_io

from .conftest import SAMPLES


def png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bomb(width=30000, height=30000, depth=8, colour=2) -> bytes:
    """A PNG of a few hundred bytes that declares ``width x height`` pixels (rows of zeros)."""
    row = b"\0" * (width * 3 + 1)
    idat = zlib.compress(row * 4, 9)  # only the first rows: the size is in the header
    return (
        image_io.PNG_MAGIC
        + png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0))
        + png_chunk(b"IDAT", idat)
        + png_chunk(b"IEND", b"")
    )


def jpeg_bomb(width=30000, height=30000) -> bytes:
    """A real 8x8 JPEG whose frame header (SOF0) is rewritten to declare ``width x height``."""
    data = bytearray(cv2.imencode(".jpg", np.full((8, 8, 3), 200, np.uint8))[1].tobytes())
    i = data.index(b"\xff\xc0")
    data[i + 5 : i + 9] = struct.pack(">HH", height, width)
    return bytes(data)


def jpeg_with_orientation(image: np.ndarray, orientation: int) -> bytes:
    """``image`` as a JPEG with an EXIF APP1 segment whose Orientation tag (0x0112) is ``orientation``."""
    jpg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    tiff = (
        b"MM\0*"
        + struct.pack(">I", 8)
        + struct.pack(">H", 1)
        + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)
        + struct.pack(">I", 0)
    )
    app1 = b"Exif\0\0" + tiff
    return jpg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpg[2:]


@pytest.fixture()
def no_decoding(monkeypatch):
    """Fail the test if OpenCV is asked to decode anything."""
    calls = []
    monkeypatch.setattr(
        image_io.cv2, "imdecode", lambda *a, **k: calls.append(a) or pytest.fail("decoded")
    )
    return calls


@pytest.mark.parametrize(
    "make,needle",
    [
        (lambda: png_bomb(), "30000x30000 is 900 megapixels"),
        (lambda: jpeg_bomb(), "30000x30000 is 900 megapixels"),
        (lambda: jpeg_bomb(65535, 65535), "megapixels"),
        (lambda: png_bomb(7000, 7000, depth=16, colour=6), "7000x7000 is 49 megapixels"),
        (
            lambda: png_bomb(5000, 5000, depth=16, colour=6),
            "needs 191 MB",
        ),  # 25 MP but 8 bytes a pixel
    ],
)
def test_bombs_are_refused_from_their_header_without_decoding(make, needle, no_decoding):
    data = make()
    assert len(data) < 2000
    started = time.perf_counter()
    with pytest.raises(services.ImageError, match=needle):
        services.decode_upload(data)
    assert time.perf_counter() - started < 0.5 and not no_decoding


@pytest.mark.parametrize(
    "data",
    [
        b"GIF89a\x30\x75\x30\x75\x80\x00\x00" + b"\0" * 22,  # 35-byte GIF, 30000x30000
        b"BM" + b"\0" * 16 + struct.pack("<ii", 30000, 30000) + b"\0" * 30,  # BMP
        b"RIFF\x24\0\0\0WEBPVP8X" + b"\0" * 30,  # WebP
        b"II*\0" + b"\0" * 40,  # TIFF
    ],
)
def test_other_formats_are_refused_without_decoding(data, no_decoding):
    with pytest.raises(services.ImageError, match="only JPEG and PNG"):
        services.decode_upload(data)


@pytest.mark.parametrize(
    "data,needle",
    [
        (image_io.PNG_MAGIC + b"\0\0\0\x0dIHDR", "cut off"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\0" + b"\0" * 9 + b"\xff\xd9", "declares no image size"),
    ],
)
def test_damaged_headers_are_refused(data, needle, no_decoding):
    with pytest.raises(services.ImageError, match=needle):
        services.decode_upload(data)


@pytest.mark.parametrize("first", ["companion", "vision.pipeline"])
def test_opencv_itself_refuses_a_bomb_when_the_project_is_imported_first(first):
    """The second line: OPENCV_IO_MAX_IMAGE_PIXELS is set before cv2 is imported, so even a
    direct cv2.imdecode of a 9000 x 9000 (81 MP) PNG is refused (fresh process)."""
    import subprocess
    import sys

    from .conftest import ROOT

    code = (
        f"import {first}, cv2, numpy as np, sys\n"
        "data = np.frombuffer(sys.stdin.buffer.read(), np.uint8)\n"
        "try:\n    cv2.imdecode(data, 0); print('decoded')\nexcept cv2.error:\n    print('refused')\n"
    )
    bomb = png_bomb(9000, 9000, colour=0)
    out = subprocess.run(
        [sys.executable, "-c", code], input=bomb, capture_output=True, cwd=ROOT, timeout=120
    )
    assert out.stdout.decode().strip() == "refused", out.stderr.decode()[-500:]


def test_jpeg_exif_orientation_is_applied():
    img = np.zeros((20, 40, 3), np.uint8)
    img[:, :20] = 255  # left half white
    out = services.decode_upload(
        jpeg_with_orientation(img, 6)
    )  # 6: rotate 90 degrees clockwise to view
    assert out.shape == (40, 20, 3)
    assert out[:20].mean() > 200 and out[20:].mean() < 50  # the white half is now on top
    assert services.decode_upload(jpeg_with_orientation(img, 1)).shape == (20, 40, 3)


def test_transparent_png_is_composited_on_neutral_grey():
    rgba = np.zeros((10, 12, 4), np.uint8)
    rgba[:, :6] = (255, 255, 255, 255)  # opaque white left half
    rgba[:, 6:] = (0, 0, 0, 0)  # fully transparent right half (black underneath)
    out = services.decode_upload(cv2.imencode(".png", rgba)[1].tobytes())
    assert out.shape == (10, 12, 3) and out.dtype == np.uint8
    assert (out[:, :6] == 255).all() and (out[:, 6:] == image_io.BACKGROUND).all()


@pytest.mark.parametrize(
    "array",
    [
        np.full((9, 11), 40000, np.uint16),  # 16-bit grey
        np.full((9, 11, 3), 40000, np.uint16),  # 16-bit colour
        np.full((9, 11, 4), 40000, np.uint16),  # 16-bit colour + opaque alpha
        np.full((9, 11), 156, np.uint8),  # 8-bit grey
    ],
)
def test_grey_and_16_bit_pngs_become_8_bit_bgr(array):
    if array.ndim == 3 and array.shape[2] == 4:
        array[:, :, 3] = 65535
    out = services.decode_upload(cv2.imencode(".png", array)[1].tobytes())
    assert out.shape == (9, 11, 3) and out.dtype == np.uint8
    assert (out == 156).all()  # 40000 >> 8 == 156


def test_grey_alpha_array_is_composited():
    ga = np.zeros((4, 4, 2), np.uint8)
    ga[..., 0], ga[..., 1] = 200, 0
    assert (image_io.to_bgr8(ga) == 128).all()


def test_at_most_two_decodes_run_at_once(monkeypatch):
    real = cv2.imdecode
    running, peak, lock = [0], [0], threading.Lock()

    def slow_decode(*args):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return real(*args)

    monkeypatch.setattr(image_io.cv2, "imdecode", slow_decode)
    data = (SAMPLES / "IMG_0350.jpg").read_bytes()
    threads = [threading.Thread(target=services.decode_upload, args=(data,)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert peak[0] == image_io.DECODE_SLOTS == 2


def test_no_free_decode_slot_is_busy_not_a_hang(monkeypatch):
    slots = threading.BoundedSemaphore(1)
    slots.acquire()
    monkeypatch.setattr(image_io, "_slots", slots)
    monkeypatch.setattr(services, "DECODE_WAIT_S", 0.05)
    with pytest.raises(services.Busy):
        services.decode_upload((SAMPLES / "IMG_0350.jpg").read_bytes())


def test_an_upload_with_every_decode_slot_busy_is_503_with_retry_after(client, app, monkeypatch):
    from .conftest import new_table
    from .test_api import count, upload

    slots = threading.BoundedSemaphore(1)
    slots.acquire()
    monkeypatch.setattr(image_io, "_slots", slots)
    monkeypatch.setattr(services, "DECODE_WAIT_S", 0.05)
    t = new_table(client)
    r = upload(client, t, (SAMPLES / "IMG_0350.jpg").read_bytes())
    assert (
        r.status_code == 503
        and r.headers["Retry-After"] == "5"
        and "try again" in r.json["error"]["message"]
    )
    assert count(app, "SELECT COUNT(*) FROM photos") == 0


def test_pipeline_load_image_refuses_a_bomb_file_from_its_header(tmp_path, no_decoding):
    from vision.pipeline import load_image

    path = tmp_path / "bomb.png"
    path.write_bytes(png_bomb())
    with pytest.raises(ValueError, match="900 megapixels"):
        load_image(path)


def test_a_big_jpeg_is_decoded_reduced_and_a_phone_photo_is_not():
    assert image_io.reduction(7296, 5472) == 2  # 40 MP -> 3648 x 2736
    assert image_io.reduction(4032, 3024) == 1  # a 12 MP phone photo: full size
    assert image_io.reduction(24000, 1000) == 8
    wide = np.full((1000, 6000, 3), 200, np.uint8)
    wide[:, :3000] = 30
    out = image_io.decode(cv2.imencode(".jpg", wide)[1].tobytes())
    assert out.shape == (500, 3000, 3)  # half of each side: 1/4 of the memory
    assert out[:, :1400].mean() < 60 and out[:, 1600:].mean() > 170  # the same picture
    assert image_io.decode(cv2.imencode(".jpg", wide[:, :5998])[1].tobytes()).shape[1] == 5998


def test_photos_beyond_the_slots_in_memory_are_503_with_retry_after(tmp_path, monkeypatch):
    """``PHOTO_SLOTS`` photos in memory at once: the next upload waits ``PHOTO_WAIT_S``, then
    is 503 with Retry-After and stores nothing; once the slot is free uploads work again."""
    from companion.app import create_app

    from .conftest import new_table
    from .test_api import count, upload

    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "t",
            "DATABASE": str(tmp_path / "d.sqlite"),
            "PHOTO_DIR": str(tmp_path / "p"),
            "PHOTO_SLOTS": 1,
            "PHOTO_WAIT_S": 0.2,
        },
        instance_path=str(tmp_path),
    )
    inside, leave = threading.Event(), threading.Event()

    def slow_detect(image, game=None):
        inside.set()
        leave.wait(10)
        return []

    monkeypatch.setattr(services, "detect", slow_detect)
    client = app.test_client()
    t = new_table(client)
    photo = (SAMPLES / "IMG_0350.jpg").read_bytes()
    first: list = []
    worker = threading.Thread(target=lambda: first.append(upload(app.test_client(), t, photo)))
    worker.start()
    try:
        assert inside.wait(10)
        r = upload(client, t, photo)
        assert r.status_code == 503 and r.headers["Retry-After"] == "5"
        assert "send the photo again" in r.json["error"]["message"]
    finally:
        leave.set()
        worker.join(10)
    assert first[0].status_code == 201
    assert count(app, "SELECT COUNT(*) FROM photos") == 1
    assert upload(client, t, photo).status_code == 201
