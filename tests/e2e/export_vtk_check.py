"""Reads an `lbsim export vtk` directory back with VTK's own XML readers and checks every value
against independent sources (e2e.export_vtk):
  - the costs: `lbsim trace export --csv` (steps.csv: step,app_step,element,<metrics>, 17 digits)
  - the geometry: its elements.csv (element,x,y,z[,i,j,k])
  - the owners: `lbsim replay --results r.db --save-assignment` (table assignment: the initial
    partition at step first-1, then the one after each repartition at the trace step it preceded)
  - the times: the same run's steps (time_ns) and repartitions (partition_ns + migration_ns)
usage: export_vtk_check.py DIR CSVDIR RESULTS.DB METRIC EVERY sim|app
Exits 0 when everything agrees, 3 when vtk cannot be imported, else 1 with what differs."""
import csv
import os
import sqlite3
import sys
import xml.etree.ElementTree as ET

try:
    from vtkmodules.vtkIOXML import vtkXMLImageDataReader, vtkXMLUnstructuredGridReader
except ImportError as exc:
    print("vtk cannot be imported (%s): install python3-vtk9" % exc)
    sys.exit(3)

out, csvdir, db, metric, every, timing = sys.argv[1:7]
every = int(every)

# ---------------------------------------------------------------- independent sources
costs = {}  # (step, element) -> cost
app_steps = {}
with open(os.path.join(csvdir, "steps.csv")) as f:
    for row in csv.DictReader(f):
        costs[(int(row["step"]), int(row["element"]))] = float(row[metric])
        app_steps[int(row["step"])] = int(row["app_step"])
elems = {}
with open(os.path.join(csvdir, "elements.csv")) as f:
    for row in csv.DictReader(f):
        elems[int(row["element"])] = row
E = len(elems)

con = sqlite3.connect(db)
(run, total_s, P, nrep) = con.execute(
    "SELECT id, total_time_s, procs, repartitions FROM runs ORDER BY id DESC LIMIT 1").fetchone()
steps = con.execute("SELECT step, time_ns FROM steps WHERE run=? ORDER BY step", (run,)).fetchall()
reps = dict(con.execute("SELECT step, partition_ns + migration_ns FROM repartitions WHERE run=?", (run,)).fetchall())
assign = {}  # trace step the partition starts at -> element -> part
for step, el, part in con.execute("SELECT step, element, part FROM assignment WHERE run=?", (run,)):
    assign.setdefault(step, {})[el] = part
first = min(assign) + 1  # the initial partition is stored at the window's first step - 1
window = [first + s for s in range(len(steps))]


def owner_at(step):
    """The partition in force at trace step `step`: the last one stored at or before it."""
    return assign[max(k for k in assign if k <= step)]


# The simulated time at the end of each step: the makespan, repartitions included (the results
# store keeps steps and repartitions by trace step).
t_ns, end_ns = 0, {}
for (s, ns) in steps:
    t_ns += reps.get(s, 0) + ns
    end_ns[s] = t_ns
assert sorted(end_ns) == window, (sorted(end_ns), window)
assert abs(t_ns * 1e-9 - total_s) < 1e-9, ("the steps do not add up to the total", t_ns, total_s)

# ---------------------------------------------------------------- the collection
pvd = ET.parse(os.path.join(out, "replay.pvd")).getroot()
assert pvd.get("type") == "Collection", pvd.attrib
sets = pvd.findall("./Collection/DataSet")
exported = [st for i, st in enumerate(window) if i % every == 0]
assert [d.get("file") for d in sets] == [
    "step_%06d.%s" % (s, "vti" if "i" in elems[0] else "vtu") for s in exported], [d.get("file") for d in sets]
names = sorted(os.listdir(out))
assert names == sorted(["replay.pvd"] + [d.get("file") for d in sets]), names

moves = 0
prev = owner_at(first - 1)
for d, step in zip(sets, exported):
    want_t = app_steps[step] if timing == "app" else end_ns[step] * 1e-9
    assert abs(float(d.get("timestep")) - want_t) <= 1e-12 * max(1, abs(want_t)), (step, d.get("timestep"), want_t)
    path = os.path.join(out, d.get("file"))
    structured = path.endswith(".vti")
    r = vtkXMLImageDataReader() if structured else vtkXMLUnstructuredGridReader()
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode():
        raise SystemExit("%s: the VTK reader failed (error %d)" % (path, r.GetErrorCode()))
    g = r.GetOutput()
    assert g.GetNumberOfCells() == E, (path, g.GetNumberOfCells(), E)
    fd = g.GetFieldData()
    assert int(fd.GetArray("step").GetValue(0)) == step
    assert int(fd.GetArray("app_step").GetValue(0)) == app_steps[step]
    assert abs(fd.GetArray("time_s").GetValue(0) - end_ns[step] * 1e-9) <= 1e-15, path
    cd = g.GetCellData()
    arr = {n: cd.GetArray(n) for n in ("cost", "owner", "moved", "element")}
    types = {n: a.GetDataTypeAsString() for n, a in arr.items()}
    assert types["cost"] == "double" and types["owner"] == "int" and types["moved"] == "unsigned char" and \
        types["element"] in ("long", "long long", "vtkIdType"), types
    own = owner_at(step)
    seen = set()
    for c in range(E):
        el = int(arr["element"].GetValue(c))
        seen.add(el)
        # exactly the trace's value (17 digits both ways)
        assert arr["cost"].GetValue(c) == costs[(step, el)], (path, c, el, arr["cost"].GetValue(c), costs[(step, el)])
        o = arr["owner"].GetValue(c)
        assert 0 <= o < P and o == own[el], (path, el, o, own[el])
        mv = arr["moved"].GetValue(c)
        assert mv == (own[el] != prev[el]), (path, el, mv, own[el], prev[el])
        moves += mv
        # where the element is: its cell's centre, or its point
        row = elems[el]
        if structured:
            dims = [g.GetDimensions()[k] - 1 for k in range(3)]
            ijk = [c % dims[0], c // dims[0] % dims[1], c // (dims[0] * dims[1])]
            assert ijk == [int(row["i"]), int(row["j"]), int(row["k"])], (path, c, el, ijk)
            bounds = [0.0] * 6
            g.GetCell(c).GetBounds(bounds)
            centre = [(bounds[2 * k] + bounds[2 * k + 1]) / 2 for k in range(3)]
            want = [float(row[a]) for a in "xyz"]
            assert centre == want, (path, el, centre, want)
        else:
            assert el == c, (path, c, el)
            assert g.GetCellType(c) == 1, "VTK_VERTEX"
            pt = g.GetPoint(g.GetCell(c).GetPointId(0))
            want = [float(row[a]) if row[a] != "" else 0.0 for a in "xyz"]
            assert list(pt) == want, (path, el, pt, want)
    assert seen == set(range(E)), (path, "every element once")
    prev = own

print("%s: %d files, %d elements, %d processors, %d repartitions, %d moved flags: all agree" %
      (out, len(sets), E, P, nrep, moves))
if nrep > 0 and every == 1 and moves == 0:
    raise SystemExit("repartitions but no element marked moved")
