"""The companion: command line, terminal play and the Flask web app for phones at the table.

Importing the package sets OpenCV's own decode limit (``OPENCV_IO_MAX_IMAGE_PIXELS``, read
when cv2 is imported) to the photo limit of :mod:`vision.image_io`, unless it is set already:
a second line behind the header check there.
"""

import os

os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", "40000000")
