"""KiCad's half of the PCB: run by the system's python3, which has KiCad's ``pcbnew``.

Debian's ``kicad`` package puts ``pcbnew`` into the system python3 only, never into a venv, so
this file imports nothing but the standard library and ``pcbnew``, and talks JSON over files:

- ``pads IN OUT``: each footprint's pads and courtyard, as KiCad's library draws them, so the
  layout places and routes against KiCad's own land patterns;
- ``build IN OUT``: the board from the layout (footprints, nets, tracks, vias, zones, text),
  saved as a KiCad 6 board, its zones filled, checked by KiCad's design rules check
  (``WriteDRCReport``), plotted (Gerber X2 and Excellon) and its copper drawn out for pictures.

Every figure is in nanometres on the KiCad side and millimetres in the JSON.
"""

import json
import os
import re
import sys

try:
    import pcbnew
except ImportError:  # imported elsewhere (the package's own import check): run only beside KiCad
    pcbnew = None

LIBRARY = os.environ.get("KICAD6_FOOTPRINT_DIR", "/usr/share/kicad/footprints")
NM = 1_000_000
COPPER = {"F": pcbnew.F_Cu, "B": pcbnew.B_Cu} if pcbnew else {}


def nm(mm):
    return int(round(mm * NM))  # noqa: RUF046


def point(x, y):
    return pcbnew.wxPoint(nm(x), nm(y))


def pico_footprint(board=None):
    """The Raspberry Pi Pico as a through-hole module: KiCad 6's library has none (KiCad 7's
    Module:RaspberryPi_Pico_Common_THT has this land pattern). Pins 1-20 down the left row,
    21-40 up the right, 2.54 mm apart, the rows 17.78 mm apart (Raspberry Pi's Pico
    datasheet, "Mechanical specification")."""
    fp = pcbnew.FOOTPRINT(board)
    fp.SetFPID(pcbnew.LIB_ID("Module", "RaspberryPi_Pico_Common_THT"))
    for number in range(1, 41):
        pad = pcbnew.PAD(fp)
        left = number <= 20
        row = number - 1 if left else 40 - number
        pad.SetNumber(str(number))
        pad.SetAttribute(pcbnew.PAD_ATTRIB_PTH)
        pad.SetShape(pcbnew.PAD_SHAPE_RECT if number == 1 else pcbnew.PAD_SHAPE_OVAL)
        pad.SetSize(pcbnew.wxSize(nm(1.7), nm(1.7)))
        pad.SetDrillSize(pcbnew.wxSize(nm(1.02), nm(1.02)))
        pad.SetLayerSet(pcbnew.PAD.PTHMask())
        pad.SetPos0(point(-8.89 if left else 8.89, -24.13 + 2.54 * row))
        pad.SetPosition(pad.GetPos0())
        fp.Add(pad)
    for layer, grow, width in ((pcbnew.F_CrtYd, 11.0, 0.05), (pcbnew.F_SilkS, 10.6, 0.12)):
        half_h = 26.0 if layer == pcbnew.F_CrtYd else 25.6
        corners = [(-grow, -half_h), (grow, -half_h), (grow, half_h), (-grow, half_h)]
        for (x1, y1), (x2, y2) in zip(corners, corners[1:] + corners[:1]):  # noqa: B905
            line = pcbnew.FP_SHAPE(fp)
            line.SetShape(pcbnew.SHAPE_T_SEGMENT)
            line.SetLayer(layer)
            line.SetStart0(point(x1, y1))
            line.SetEnd0(point(x2, y2))
            line.SetWidth(nm(width))
            line.SetDrawCoord()
            fp.Add(line)
    fp.Reference().SetText("U")
    fp.Value().SetText("Raspberry Pi Pico")
    return fp


def load(fpid, board=None):
    library, name = fpid.split(":", 1)
    if fpid == "Module:RaspberryPi_Pico_Common_THT":
        return pico_footprint(board)
    fp = pcbnew.FootprintLoad(os.path.join(LIBRARY, library + ".pretty"), name)
    if fp is None:
        raise SystemExit(f"KiCad's library has no footprint {fpid} (under {LIBRARY})")
    fp.SetFPID(pcbnew.LIB_ID(library, name))  # with its library, as KiCad's editor names it
    return fp


def pads_of(fp):
    found = []
    for pad in fp.Pads():
        box = pad.GetBoundingBox()
        found.append(
            {
                "number": pad.GetNumber(),
                "x": box.GetX() / NM,
                "y": box.GetY() / NM,
                "w": box.GetWidth() / NM,
                "h": box.GetHeight() / NM,
                "cx": pad.GetPosition().x / NM,
                "cy": pad.GetPosition().y / NM,
                "round": pad.GetShape() in (pcbnew.PAD_SHAPE_CIRCLE, pcbnew.PAD_SHAPE_OVAL),
                "drill": pad.GetDrillSize().x / NM,
                "plated": pad.GetAttribute() == pcbnew.PAD_ATTRIB_PTH,
                "layers": [side for side, layer in COPPER.items() if pad.IsOnLayer(layer)],
            }
        )
    courtyard = None
    for item in fp.GraphicalItems():
        if item.GetLayer() in (pcbnew.F_CrtYd, pcbnew.B_CrtYd):
            box = item.GetBoundingBox()
            edges = (box.GetX(), box.GetY(), box.GetRight(), box.GetBottom())
            if courtyard is None:
                courtyard = list(edges)
            else:
                courtyard = [
                    min(courtyard[0], edges[0]),
                    min(courtyard[1], edges[1]),
                    max(courtyard[2], edges[2]),
                    max(courtyard[3], edges[3]),
                ]
    return {"pads": found, "courtyard": [v / NM for v in courtyard] if courtyard else None}


def clip_silk(fp):
    """Move a library footprint's silkscreen lines that run over its pads to a comments
    layer (the fab clips them anyway, and KiCad's check rightly reports them)."""
    margin = nm(0.15)
    boxes = []
    for pad in fp.Pads():
        box = pad.GetBoundingBox()
        box.Inflate(margin)
        boxes.append(box)
    for item in fp.GraphicalItems():
        if item.GetLayer() in (pcbnew.F_SilkS, pcbnew.B_SilkS) and item.GetClass() == "MGRAPHIC":  # noqa: SIM102
            if any(box.Intersects(item.GetBoundingBox()) for box in boxes):
                item.SetLayer(pcbnew.Cmts_User)  # kept for a person, never plotted


def pads_command(request):
    return {fpid: pads_of(load(fpid)) for fpid in request["footprints"]}


def polygons(poly_set):
    """A SHAPE_POLY_SET's outlines (holes left out: the pictures draw holes from the pads)."""
    found = []
    for index in range(poly_set.OutlineCount()):
        chain = poly_set.Outline(index)
        found.append(
            [[chain.CPoint(k).x / NM, chain.CPoint(k).y / NM] for k in range(chain.PointCount())]
        )
        for hole in range(poly_set.HoleCount(index)):
            chain = poly_set.Hole(index, hole)
            found.append(
                [
                    [chain.CPoint(k).x / NM, chain.CPoint(k).y / NM, 0]
                    for k in range(chain.PointCount())
                ]
            )
    return found


def rules(board, fab):
    settings = board.GetDesignSettings()
    default = settings.GetNetClasses().GetDefault()
    default.SetClearance(nm(fab["clearance"]))
    default.SetTrackWidth(nm(fab["track"]))
    default.SetViaDiameter(nm(fab["via_diameter"]))
    default.SetViaDrill(nm(fab["via_drill"]))
    settings.m_TrackMinWidth = nm(fab["least_track"])
    settings.m_MinClearance = nm(fab["least_space"])
    settings.m_ViasMinSize = nm(fab["via_diameter"])
    settings.m_ViasMinAnnularWidth = nm(fab["annular_ring"])
    settings.m_MinThroughDrill = nm(fab["least_drill"])
    settings.m_CopperEdgeClearance = nm(fab["edge_clearance"])
    settings.m_HoleToHoleMin = nm(fab["hole_to_hole"])
    settings.m_HoleClearance = nm(fab["hole_clearance"])


def build_command(request):
    out = request["out"]
    os.makedirs(out, exist_ok=True)
    board = pcbnew.BOARD()
    rules(board, request["fab"])
    nets = {}
    for name in request["nets"]:
        net = pcbnew.NETINFO_ITEM(board, name)
        board.Add(net)
        nets[name] = net
    outline = request["outline"]
    for (x1, y1), (x2, y2) in zip(outline, outline[1:] + outline[:1]):  # noqa: B905
        edge = pcbnew.PCB_SHAPE(board)
        edge.SetShape(pcbnew.SHAPE_T_SEGMENT)
        edge.SetLayer(pcbnew.Edge_Cuts)
        edge.SetStart(point(x1, y1))
        edge.SetEnd(point(x2, y2))
        edge.SetWidth(nm(0.1))
        board.Add(edge)
    moved = []
    for part in request["footprints"]:
        fp = load(part["fpid"], board)
        fp.SetReference(part["ref"])
        fp.SetValue(part["value"])
        fp.Reference().SetVisible(part.get("show_ref", False))
        fp.Value().SetVisible(False)
        board.Add(fp)
        fp.SetPosition(point(part["x"], part["y"]))
        fp.SetOrientationDegrees(part["rot"])
        for pad, want in zip(fp.Pads(), part["where"]):  # noqa: B905
            net = part["pads"].get(pad.GetNumber())
            if net is not None:
                pad.SetNet(nets[net])
            if want is not None:
                got = (pad.GetPosition().x / NM, pad.GetPosition().y / NM)
                if abs(got[0] - want[0]) > 0.001 or abs(got[1] - want[1]) > 0.001:
                    moved.append(f"{part['ref']}.{pad.GetNumber()} at {got}, laid out at {want}")
        clip_silk(fp)
    if moved:
        raise SystemExit("pads not where the layout put them: " + "; ".join(moved[:5]))
    for track in request["tracks"]:
        item = pcbnew.PCB_TRACK(board)
        item.SetStart(point(track[0], track[1]))
        item.SetEnd(point(track[2], track[3]))
        item.SetWidth(nm(track[4]))
        item.SetLayer(COPPER[track[5]])
        item.SetNet(nets[track[6]])
        board.Add(item)
    for via in request["vias"]:
        item = pcbnew.PCB_VIA(board)
        item.SetPosition(point(via[0], via[1]))
        item.SetWidth(nm(request["fab"]["via_diameter"]))
        item.SetDrill(nm(request["fab"]["via_drill"]))
        item.SetLayerPair(pcbnew.F_Cu, pcbnew.B_Cu)
        item.SetNet(nets[via[2]])
        board.Add(item)
    for zone in request["zones"]:
        item = pcbnew.ZONE(board)
        item.SetLayer(COPPER[zone["layer"]])
        item.SetNet(nets[zone["net"]])
        shape = item.Outline()
        shape.NewOutline()
        for x, y in zone["outline"]:
            shape.Append(nm(x), nm(y))
        item.SetLocalClearance(nm(zone["clearance"]))
        item.SetMinThickness(nm(zone["min_width"]))
        item.SetPadConnection(pcbnew.ZONE_CONNECTION_THERMAL)
        item.SetThermalReliefGap(nm(zone["thermal_gap"]))
        item.SetThermalReliefSpokeWidth(nm(zone["spoke"]))
        board.Add(item)
    for text in request["texts"]:
        item = pcbnew.PCB_TEXT(board)
        item.SetText(text["text"])
        item.SetPosition(point(text["x"], text["y"]))
        item.SetLayer(pcbnew.F_SilkS if text.get("layer", "F") == "F" else pcbnew.B_SilkS)
        item.SetTextSize(pcbnew.wxSize(nm(text["size"]), nm(text["size"])))
        item.SetTextThickness(nm(text["size"] * 0.15))
        if text.get("layer") == "B":
            item.SetMirrored(True)
        board.Add(item)
    name = request["name"]
    path = os.path.join(out, name + ".kicad_pcb")
    pcbnew.SaveBoard(path, board)
    # Filled and checked as KiCad opens it, as a club would (a board made in Python has no
    # project behind it, and the zone filler needs one).
    board = pcbnew.LoadBoard(path)
    board.BuildConnectivity()
    pcbnew.ZONE_FILLER(board).Fill(board.Zones())
    pcbnew.SaveBoard(path, board)
    report = os.path.join(out, name + "-drc.rpt")
    pcbnew.WriteDRCReport(board, report, pcbnew.EDA_UNITS_MILLIMETRES, True)
    text = open(report).read()  # noqa: SIM115
    counts = {
        key: int(m.group(1)) if (m := re.search(pattern, text)) else -1
        for key, pattern in (
            ("violations", r"Found (\d+) DRC violations"),
            ("unconnected", r"Found (\d+) unconnected pads"),
            ("footprint_errors", r"Found (\d+) Footprint errors"),
        )
    }
    plots = plot(board, os.path.join(out, "gerbers"), name)
    pad_nets = {}
    for fp in board.GetFootprints():
        for pad in fp.Pads():
            if pad.GetNetname():
                pad_nets.setdefault(f"{fp.GetReference()}.{pad.GetNumber()}", pad.GetNetname())
    return {
        "board": path,
        "report": report,
        **counts,
        "plots": plots,
        "pad_nets": pad_nets,
        "copper": copper_drawing(board),
    }


LAYERS = [
    ("F_Cu", "F.Cu", "Top copper"),
    ("B_Cu", "B.Cu", "Bottom copper"),
    ("F_Mask", "F.Mask", "Top solder mask"),
    ("B_Mask", "B.Mask", "Bottom solder mask"),
    ("F_SilkS", "F.SilkS", "Top silkscreen"),
    ("B_SilkS", "B.SilkS", "Bottom silkscreen"),
    ("F_Paste", "F.Paste", "Top paste"),
    ("Edge_Cuts", "Edge.Cuts", "Board outline"),
]


def plot(board, directory, name):
    os.makedirs(directory, exist_ok=True)
    controller = pcbnew.PLOT_CONTROLLER(board)
    options = controller.GetPlotOptions()
    options.SetOutputDirectory(directory)
    options.SetPlotFrameRef(False)
    options.SetUseGerberX2format(True)
    options.SetIncludeGerberNetlistInfo(True)
    options.SetUseGerberProtelExtensions(False)
    options.SetCreateGerberJobFile(True)
    options.SetSubtractMaskFromSilk(True)
    options.SetUseAuxOrigin(False)
    options.SetDrillMarksType(pcbnew.PCB_PLOT_PARAMS.NO_DRILL_SHAPE)
    written = []
    for attribute, suffix, describe in LAYERS:
        controller.SetLayer(getattr(pcbnew, attribute))
        controller.OpenPlotfile(suffix.replace(".", "_"), pcbnew.PLOT_FORMAT_GERBER, describe)
        controller.PlotLayer()
        written.append(controller.GetPlotFileName())
        controller.ClosePlot()
    drill = pcbnew.EXCELLON_WRITER(board)
    drill.SetOptions(False, False, pcbnew.wxPoint(0, 0), False)
    drill.SetFormat(True)
    drill.CreateDrillandMapFilesSet(directory, True, False)
    return sorted(os.listdir(directory))


def copper_drawing(board):
    """Each copper layer's filled zones, tracks, vias and pads, for the pictures."""
    drawing = {
        "F": {"zones": [], "tracks": [], "pads": []},
        "B": {"zones": [], "tracks": [], "pads": []},
        "holes": [],
        "vias": [],
    }
    for zone in board.Zones():
        for side, layer in COPPER.items():
            if zone.IsOnLayer(layer):
                drawing[side]["zones"].extend(polygons(zone.GetFilledPolysList(layer)))
    for track in board.GetTracks():
        if track.GetClass() == "PCB_VIA":
            drawing["vias"].append([track.GetPosition().x / NM, track.GetPosition().y / NM])
            continue
        side = "F" if track.GetLayer() == pcbnew.F_Cu else "B"
        drawing[side]["tracks"].append(
            [
                track.GetStart().x / NM,
                track.GetStart().y / NM,
                track.GetEnd().x / NM,
                track.GetEnd().y / NM,
                track.GetWidth() / NM,
            ]
        )
    for fp in board.GetFootprints():
        for pad in fp.Pads():
            shape = polygons(pad.GetEffectivePolygon())
            for side, layer in COPPER.items():
                if pad.IsOnLayer(layer):
                    drawing[side]["pads"].extend(shape)
            if pad.GetDrillSize().x:
                drawing["holes"].append(
                    [pad.GetPosition().x / NM, pad.GetPosition().y / NM, pad.GetDrillSize().x / NM]
                )
    return drawing


def main(argv):
    if pcbnew is None:
        raise SystemExit("KiCad's pcbnew is not installed for this python3")
    command, source, target = argv[1:4]
    with open(source) as handle:
        request = json.load(handle)
    answer = {"pads": pads_command, "build": build_command}[command](request)
    with open(target, "w") as handle:
        json.dump(answer, handle)


if __name__ == "__main__":
    main(sys.argv)
