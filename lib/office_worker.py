"""One converter of the office preview pool (lib/office_converter.ts starts it).

Usage: office_worker.py <soffice.bin> <profile dir>. Starts its own LibreOffice (a child that
dies with it, and it dies with the drive process: PR_SET_PDEATHSIG), connects over UNO, then
converts one document per line of stdin: {"in": path, "out": path} -> {"ok": true} or
{"ok": false, "error": "..."} on stdout. LibreOffice stays loaded between documents, so a
document costs its conversion only (tens to hundreds of ms), not a LibreOffice start (~2 s).
Written against Debian's python3-uno: unoserver was tried and its way of loading crashes
LibreOffice 7.4's no-GUI Calc on spreadsheets; this loads hidden and read-only.
"""
import ctypes
import json
import os
import signal
import subprocess
import sys
import time
import uuid

import uno
from com.sun.star.beans import PropertyValue


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


PR_SET_PDEATHSIG = 1
FLAGS = ["--headless", "--invisible", "--nologo", "--norestore", "--nodefault"]


def die_with_parent():
    # Linux only; elsewhere the worker still ends when stdin closes (the drive process ended).
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (AttributeError, OSError):
        pass


def start_office(program, profile_dir):
    profile = "-env:UserInstallation=file://" + profile_dir
    # A fresh profile makes LibreOffice exit once asking for a restart (81): make it first.
    subprocess.run([program] + FLAGS + ["--terminate_after_init", profile],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, preexec_fn=die_with_parent, check=False)
    pipe_name = "drive-preview-" + uuid.uuid4().hex
    office = subprocess.Popen(
        [program] + FLAGS + ["--accept=pipe,name=%s;urp;" % pipe_name, profile],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=die_with_parent)
    return office, pipe_name


def connect(pipe_name):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext(
        "com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.time() + 60
    while True:
        try:
            ctx = resolver.resolve(
                "uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe_name)
            return ctx.ServiceManager.createInstanceWithContext(
                "com.sun.star.frame.Desktop", ctx)
        except Exception:
            if time.time() > deadline:
                raise
            time.sleep(0.05)


def export_filter(doc):
    if doc.supportsService("com.sun.star.sheet.SpreadsheetDocument"):
        return "calc_pdf_Export"
    if doc.supportsService("com.sun.star.presentation.PresentationDocument"):
        return "impress_pdf_Export"
    if doc.supportsService("com.sun.star.drawing.DrawingDocument"):
        return "draw_pdf_Export"
    return "writer_pdf_Export"


def convert(desktop, job):
    # A password-protected file would ask for its password: with no interaction handler and
    # Hidden, the load fails instead, which is the answer we want (cannot be converted).
    doc = desktop.loadComponentFromURL(
        uno.systemPathToFileUrl(job["in"]), "_blank", 0,
        (prop("Hidden", True), prop("ReadOnly", True)))
    if doc is None:
        return {"ok": False, "error": "LibreOffice cannot read the document"}
    try:
        doc.storeToURL(uno.systemPathToFileUrl(job["out"]),
                       (prop("FilterName", export_filter(doc)),))
    finally:
        doc.close(True)
    return {"ok": True}


def main():
    die_with_parent()
    # Conversions yield the CPU to the drive process: its requests (/healthz among them) stay
    # quick while documents convert. LibreOffice inherits the niceness.
    os.nice(10)
    office, pipe_name = start_office(sys.argv[1], sys.argv[2])
    try:
        desktop = connect(pipe_name)
        print(json.dumps({"ready": True}), flush=True)
        for line in sys.stdin:
            try:
                answer = convert(desktop, json.loads(line))
            except Exception as err:  # a damaged document raises from deep inside LibreOffice
                answer = {"ok": False, "error": "%s: %s" % (type(err).__name__, str(err)[:200])}
            print(json.dumps(answer), flush=True)
    finally:
        office.kill()
        office.wait()


if __name__ == "__main__":
    main()
