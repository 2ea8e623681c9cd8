"""Photo effects applied to a rendered scene: uneven light, cast shadows, glare, colour cast,
blur, sensor noise and JPEG compression."""

from __future__ import annotations

import cv2
import numpy as np

from .table import smooth_noise


def photo_effects(img: np.ndarray, rng: np.random.Generator, strength: float = 1.0) -> np.ndarray:
    """Make a clean render look like a phone photo.

    Args:
        img: ``(H, W, 3) float32`` BGR in 0..255 (not modified).
        rng: numpy random generator.
        strength: 0 = no effects, 1 = the training mix.
    Returns:
        ``(H, W, 3) uint8`` BGR image.
    """
    out = img.astype(np.float32).copy()
    h, w = out.shape[:2]
    if strength <= 0:
        return np.clip(out, 0, 255).astype(np.uint8)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # uneven illumination: linear gradient + vignette
    gx, gy = rng.uniform(-0.35, 0.35, 2) * strength
    light = 1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    if rng.random() < 0.5:
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (0.5 * (w * w + h * h))
        light *= 1 - rng.uniform(0, 0.4) * strength * r2
    light *= rng.uniform(0.7, 1.2) if rng.random() < 0.7 else 1.0
    out *= light[..., None]
    if rng.random() < 0.3 * strength:  # cast shadow (a hand, a phone, a person)
        k = int(rng.integers(3, 7))
        c = rng.uniform(0, [w, h])
        pts = c + rng.normal(0, 0.35, (k, 2)) * [w, h]
        m = np.zeros((h, w), np.float32)
        cv2.fillPoly(m, [cv2.convexHull(pts.astype(np.int32))], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(3, 25))
        out *= (1 - rng.uniform(0.25, 0.55) * m)[..., None]
    if rng.random() < 0.3 * strength:  # glare
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        s = rng.uniform(0.05, 0.3) * min(w, h)
        g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
        out += (g * rng.uniform(40, 140))[..., None]
    # colour cast / white balance
    out *= rng.uniform(1 - 0.12 * strength, 1 + 0.12 * strength, 3).astype(np.float32)
    if rng.random() < 0.15 * strength:  # desaturate
        grey = out.mean(axis=2, keepdims=True)
        f = rng.uniform(0.3, 1.0)
        out = out * (1 - f) + grey * f
    # low-frequency brightness mottling
    if rng.random() < 0.3:
        out *= (1 + 0.05 * strength * smooth_noise(rng, h, w, min(h, w) / 4))[..., None]
    out = np.clip(out, 0, 255)
    r = rng.random()
    if r < 0.35 * strength:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.6))
    elif r < 0.45 * strength:  # motion blur
        k = int(rng.integers(3, 9))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        ker = cv2.warpAffine(ker, rot, (k, k))
        ker /= max(ker.sum(), 1e-6)
        out = cv2.filter2D(out, -1, ker)
    sigma = rng.uniform(0, 7) * strength
    if sigma > 0.5:
        out = out + rng.normal(0, sigma, out.shape).astype(np.float32)
    u8 = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.8 * strength:
        q = int(rng.integers(30, 96))
        ok, buf = cv2.imencode(".jpg", u8, [cv2.IMWRITE_JPEG_QUALITY, q])
        if ok:
            u8 = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return u8
