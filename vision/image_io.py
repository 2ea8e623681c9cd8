"""Photo bytes -> ``HxWx3 uint8 BGR`` image, with every size limit checked before decoding.

Only JPEG and PNG are accepted. The width and height a file declares (JPEG ``SOFn`` segment,
PNG ``IHDR`` chunk) are read first; a file that declares more than ``max_pixels`` pixels, or
whose decoded form would need more than ``max_pixels * 3`` bytes (16-bit or alpha PNGs), is
refused without being decoded, so a few hundred bytes that declare 30000 x 30000 pixels cost
nothing. OpenCV's own guard (``OPENCV_IO_MAX_IMAGE_PIXELS``) is set to the same default limit
as a second line; OpenCV reads it when cv2 is imported, so it holds where this module (or the
``companion`` package, which sets it too) is imported before cv2. At most :data:`DECODE_SLOTS` decodes run at once
in a process; a caller that waits longer than ``wait_s`` for a slot gets :class:`DecoderBusy`.

A big JPEG is decoded reduced (:data:`READ_MIN_SIDE`), so its decoded form stays small.

Conversions (so every caller gets the same array): JPEG EXIF orientation is applied (OpenCV
``IMREAD_COLOR``); greyscale becomes three equal channels; 16-bit samples are scaled to 8 bit;
a transparent or translucent PNG is composited over neutral grey (:data:`BACKGROUND`).
"""

from __future__ import annotations

import os
import struct
import threading

#: Largest accepted image, pixels (a 12-megapixel phone photo is 12,000,000).
DEFAULT_MAX_PIXELS = 40_000_000
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(DEFAULT_MAX_PIXELS))

import cv2  # noqa: E402 - after the environment variable above
import numpy as np  # noqa: E402

#: A JPEG whose long side is at least twice this (pixels) is decoded reduced, by the largest of
#: 1/2, 1/4 and 1/8 per side that keeps the long side at least this long (OpenCV
#: ``IMREAD_REDUCED_COLOR_2/4/8``: libjpeg scales while decoding, so the full-size image never
#: exists). A 40-megapixel photo (7296 x 5472) is decoded at 3648 x 2736 (30 MB instead of
#: 120 MB); a 12-megapixel phone photo (4032 x 3024) at full size. The tile detector works on
#: at most 1280 px (``vision.pipeline.DETECT_MAX_SIDE``); the pips are read from this image.
READ_MIN_SIDE = 3000
_REDUCED = {
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}


def reduction(width: int, height: int, min_side: int = READ_MIN_SIDE) -> int:
    """The factor (1, 2, 4 or 8) a ``width`` x ``height`` JPEG is decoded reduced by: the
    largest that keeps the long side at least ``min_side`` pixels."""
    for factor in (8, 4, 2):
        if max(width, height) // factor >= min_side:
            return factor
    return 1


#: Decodes allowed at once per process (each may hold ~120 MB for a 40-megapixel photo).
DECODE_SLOTS = 2
_slots = threading.BoundedSemaphore(DECODE_SLOTS)

#: BGR colour under transparent PNG pixels: neutral mid grey (neither tile white nor pip black).
BACKGROUND = (128, 128, 128)

JPEG_MAGIC = b"\xff\xd8\xff"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# SOFn markers carry the frame size; C4 (DHT), C8 (JPG) and CC (DAC) do not.
_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


class DecoderBusy(RuntimeError):
    """Every decode slot stayed taken for ``wait_s`` seconds (the server is busy; retry later)."""


def sniff(data: bytes) -> str | None:
    """``"jpeg"``, ``"png"`` or None (any other format) from the first bytes."""
    if data[:3] == JPEG_MAGIC:
        return "jpeg"
    if data[:8] == PNG_MAGIC:
        return "png"
    return None


def declared_size(data: bytes) -> tuple[int, int, int]:
    """``(width, height, bytes_per_pixel)`` a JPEG or PNG declares in its header (px, px, bytes).

    ``bytes_per_pixel`` is what OpenCV allocates per pixel to decode it (3 for JPEG; PNG:
    channels x 1 or 2 bytes). Nothing is decoded.

    Raises:
        ValueError: not JPEG/PNG, or the header is cut off or declares no size.
    """
    kind = sniff(data)
    if kind == "png":
        if len(data) < 33 or data[12:16] != b"IHDR":
            raise ValueError("the PNG header is cut off or damaged")
        width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
        channels = {0: 1, 2: 3, 3: 3, 4: 4, 6: 4}.get(colour, 4)
        bpp = max(3, channels * (2 if depth == 16 else 1))
    elif kind == "jpeg":
        width = height = 0
        i, n = 2, len(data)
        while i + 4 <= n:
            if data[i] != 0xFF:
                raise ValueError("the JPEG is corrupt (bad segment marker)")
            marker = data[i + 1]
            if marker == 0xFF:  # fill byte
                i += 1
                continue
            if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # markers without a length
                i += 2
                continue
            if marker in (0xD9, 0xDA):  # end of image or start of scan before any frame header
                break
            length = struct.unpack(">H", data[i + 2 : i + 4])[0]
            if marker in _SOF:
                if i + 9 > n:
                    break
                height, width = struct.unpack(">HH", data[i + 5 : i + 9])
                break
            i += 2 + length
        bpp = 3
    else:
        raise ValueError("not a JPEG or PNG image")
    if width <= 0 or height <= 0:
        raise ValueError(f"the {kind.upper()} header declares no image size (cut off or damaged)")
    return width, height, bpp


def to_bgr8(img: np.ndarray) -> np.ndarray:
    """Any decoded array (grey, grey+alpha, BGR, BGRA; 8 or 16 bit) -> ``HxWx3 uint8 BGR``.

    Transparency is composited over :data:`BACKGROUND`.

    Raises:
        ValueError: an array that is not an image (wrong rank or channel count).
    """
    if img.dtype == np.uint16:
        img = (img >> 8).astype(np.uint8)
    elif img.dtype != np.uint8:
        img = np.clip(img, 0, 255).astype(np.uint8)
    if img.ndim == 2:
        return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.ndim != 3 or img.shape[2] not in (1, 2, 3, 4):
        raise ValueError(f"not an image array: shape {img.shape}")
    if img.shape[2] == 1:
        return cv2.cvtColor(img[:, :, 0], cv2.COLOR_GRAY2BGR)
    if img.shape[2] == 3:
        return img
    if img.shape[2] == 2:
        colour, alpha = cv2.cvtColor(img[:, :, 0], cv2.COLOR_GRAY2BGR), img[:, :, 1]
    else:
        colour, alpha = img[:, :, :3], img[:, :, 3]
    if alpha.min() == 255:
        return np.ascontiguousarray(colour)
    a = alpha.astype(np.float32)[:, :, None] / 255.0
    bg = np.array(BACKGROUND, np.float32)
    return (colour.astype(np.float32) * a + bg * (1.0 - a) + 0.5).astype(np.uint8)


def decode(
    data: bytes,
    what: str = "image data",
    max_pixels: int = DEFAULT_MAX_PIXELS,
    wait_s: float = 30.0,
    min_side: int = READ_MIN_SIDE,
) -> np.ndarray:
    """Encoded JPEG/PNG bytes -> ``HxWx3 uint8 BGR`` (see the module docstring for the rules).

    Args:
        data: the file content.
        what: names the input in error messages (a path, "the upload").
        max_pixels: refuse images that declare more pixels (width x height) than this.
        wait_s: longest wait for a decode slot, seconds.
        min_side: a JPEG is decoded reduced while its long side stays at least this many
            pixels (:func:`reduction`); the image returned is then 1/2, 1/4 or 1/8 of the
            declared size per side (rounded up).
    Raises:
        ValueError: empty, not JPEG/PNG, a JPEG without its end-of-image marker (cut off), a
            header that declares too many pixels or bytes, or content that does not decode.
        DecoderBusy: no decode slot became free within ``wait_s``.
    """
    if not data:
        raise ValueError(f"{what}: empty file")
    kind = sniff(data)
    if kind is None:
        raise ValueError(f"{what}: not an image (only JPEG and PNG photos are accepted)")
    try:
        width, height, bpp = declared_size(data)
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
    if width * height > max_pixels:
        raise ValueError(
            f"{what}: {width}x{height} is {width * height / 1e6:.0f} megapixels; "
            f"the limit is {max_pixels / 1e6:.0f} megapixels"
        )
    if width * height * bpp > max_pixels * 3:
        raise ValueError(
            f"{what}: a {width}x{height} PNG with {bpp} bytes a pixel needs "
            f"{width * height * bpp / 2**20:.0f} MB to decode; the limit is "
            f"{max_pixels * 3 / 2**20:.0f} MB (save it as an 8-bit JPEG)"
        )
    if kind == "jpeg" and data.rfind(b"\xff\xd9") < 4:
        raise ValueError(f"{what}: the JPEG is corrupt or cut off (no end-of-image marker)")
    flags = cv2.IMREAD_UNCHANGED
    if kind == "jpeg":
        flags = _REDUCED.get(reduction(width, height, min_side), cv2.IMREAD_COLOR)
    if not _slots.acquire(timeout=wait_s):
        raise DecoderBusy(f"{DECODE_SLOTS} photos are being decoded already; try again in a moment")
    try:
        img = cv2.imdecode(np.frombuffer(data, np.uint8), flags)
    except cv2.error as exc:
        raise ValueError(
            f"{what}: cannot decode the image ({str(exc).strip().splitlines()[-1]})"
        ) from None
    finally:
        _slots.release()
    if img is None or img.size == 0:
        raise ValueError(f"{what}: the {kind.upper()} is corrupt and could not be decoded")
    return to_bgr8(img)
