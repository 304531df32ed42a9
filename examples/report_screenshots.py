"""Screenshots of a ``bacon report`` page for docs/report/ (headless Chromium).

    python examples/report_screenshots.py PAGE.html OUT.png [SECTION ...] [--height H]

Without sections: the top ``H`` pixels of the page, 1200 wide (white space below the
content cut off). With section ids (``settings``, ``doctor``, ``estimates``, ``groups``,
``comparisons``, ``bias``, ``calibration``, ``items``): the page's title and those
sections alone, the others hidden by a style added to a temporary copy (the page itself
is not changed). The PNG is reduced to 256 colours to keep it small.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from pathlib import Path

from PIL import Image, ImageOps

SECTIONS = ("settings", "doctor", "estimates", "groups", "comparisons", "bias", "calibration",
            "items", "round", "simulation")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("sections", nargs="*", help="ids of the sections to show")
    parser.add_argument("--height", type=int, default=2600)
    args = parser.parse_args()
    if unknown := set(args.sections) - set(SECTIONS):
        parser.error(f"unknown section {sorted(unknown)}: choose from {', '.join(SECTIONS)}")
    html = args.page.read_text(encoding="utf-8")
    if args.sections:
        hidden = ",".join(f"#{s}" for s in SECTIONS if s not in args.sections)
        html = html.replace("</head>", f"<style>{hidden}{{display:none}}</style></head>", 1)
    with tempfile.TemporaryDirectory() as tmp:
        page, shot = Path(tmp) / "page.html", Path(tmp) / "shot.png"
        page.write_text(html, encoding="utf-8")
        subprocess.run(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--screenshot={shot}", f"--window-size=1200,{args.height}", page.as_uri()],
            check=True, capture_output=True,
        )  # fmt: skip
        image = Image.open(shot).convert("RGB")
    box = ImageOps.invert(image).getbbox()  # trailing white space cut off
    image = image.crop((0, 0, image.width, min(image.height, (box or (0, 0, 0, 0))[3] + 24)))
    image.quantize(256).save(args.out, optimize=True)
    print(f"{args.out}: {args.out.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
