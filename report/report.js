/* report.js - draws lbsim report's page from the JSON that report.c writes (#lbsim-data), with
 * Vega (window.vega, inlined before it). Every chart is a Vega view; when all have rendered,
 * #lbsim-status says how many (data-charts, of data-expected) with data-done="1"; errors,
 * Vega's included, are counted in data-errors (see CAPTURE_JS in report.c), and data-ms is
 * the time from navigation to the last chart drawn. */
(function () {
  'use strict';
  var D = JSON.parse(document.getElementById('lbsim-data').textContent);
  var main = document.getElementById('lbsim-report');
  var status = document.getElementById('lbsim-status');
  var expected = 0, rendered = 0, pending = [];
  var WIDTH = 860;
  var KINDS = ['compute', 'communication / waiting', 'partitioning', 'migration'];
  var KIND_COLORS = ['#4c78a8', '#e0e0e0', '#e45756', '#f58518'];

  /* ------------------------------------------------------------ helpers */

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, tag, attrs, text) { var e = el(tag, attrs, text); parent.appendChild(e); return e; }
  function section(id, title, intro) {
    var s = add(main, 'section', {id: id});
    add(s, 'h2', null, title);
    if (intro) add(s, 'p', {'class': 'intro'}, intro);
    return s;
  }
  function missing(parent, text) { add(parent, 'p', {'class': 'missing'}, text); }
  function base(p) { p = String(p || ''); var i = p.lastIndexOf('/'); return i >= 0 ? p.slice(i + 1) : p; }
  function fmt(v, digits) {
    if (v === null || v === undefined || v === '') return '';
    if (typeof v !== 'number') return String(v);
    if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
    return Number(v.toPrecision(digits || 4)).toString();
  }
  function parseJson(text) { try { return text ? JSON.parse(text) : null; } catch (e) { return null; } }
  function uniq(a) { var s = {}, r = []; a.forEach(function (x) { if (!(x in s)) { s[x] = 1; r.push(x); } }); return r; }
  function cmp(a, b) { return a < b ? -1 : a > b ? 1 : 0; }
  function runLabel(r) {
    return '#' + r.id + ' ' + r.policy + ' \u00b7 ' + r.partitioner + ' \u00b7 ' + base(r.grid) +
           (r.mode && r.mode !== 'bsp' ? ' \u00b7 ' + r.mode : '') + ' \u00b7 ' + base(r.trace);
  }

  /* A Vega view in parent, counted in the status; resolves when rendered. */
  function chart(parent, spec) {
    var div = add(parent, 'div', {'class': 'chart'});
    expected++;
    status.setAttribute('data-expected', String(expected));
    spec.$schema = 'https://vega.github.io/schema/vega/v5.json';
    spec.padding = spec.padding || 5;
    spec.autosize = spec.autosize || {type: 'pad'};
    try {
      var view = new vega.View(vega.parse(spec), {renderer: 'canvas', container: div, hover: true});
      pending.push(view.runAsync().then(function () { rendered++; },
                                        function (e) { window.lbsError('chart: ' + (e && e.message || e)); }));
      return view;
    } catch (e) {
      window.lbsError('chart: ' + (e && e.message || e));
      return null;
    }
  }
  /* Replaces a view's dataset and renders again. */
  function update(view, name, values) {
    if (!view) return;
    view.data(name, values).runAsync().catch(function (e) { window.lbsError('chart: ' + (e && e.message || e)); });
  }
  /* A <select> of options [[value, text]], calling onchange(value) when changed. */
  function picker(parent, label, options, onchange) {
    var p = add(parent, 'label', {'class': 'picker'}, label + ' ');
    var s = add(p, 'select');
    options.forEach(function (o) { add(s, 'option', {value: o[0]}, o[1]); });
    s.addEventListener('change', function () { onchange(s.value); });
    return s;
  }

  /* A table whose columns sort on a click of their header (numbers as numbers, empty last). */
  function table(parent, cols, rows) {
    var t = add(parent, 'table', {'class': 'sortable'});
    var hr = add(add(t, 'thead'), 'tr');
    var tb = add(t, 'tbody');
    cols.forEach(function (c, i) {
      var th = add(hr, 'th', {title: c.help || 'sort'}, c.title);
      th.addEventListener('click', function () {
        var dir = th.getAttribute('data-sort') === 'asc' ? -1 : 1;
        Array.prototype.forEach.call(hr.children, function (h) { h.removeAttribute('data-sort'); });
        th.setAttribute('data-sort', dir > 0 ? 'asc' : 'desc');
        var trs = Array.prototype.slice.call(tb.children);
        trs.sort(function (a, b) {
          var x = a.children[i].getAttribute('data-v'), y = b.children[i].getAttribute('data-v');
          if (x === '' || y === '') return x === y ? 0 : x === '' ? 1 : -1;
          var nx = Number(x), ny = Number(y);
          return dir * (isNaN(nx) || isNaN(ny) ? cmp(x, y) : nx - ny);
        });
        trs.forEach(function (tr) { tb.appendChild(tr); });
      });
    });
    rows.forEach(function (r) {
      var tr = add(tb, 'tr');
      cols.forEach(function (c) {
        var v = c.get ? c.get(r) : r[c.key];
        var td = add(tr, 'td', {'data-v': v === null || v === undefined ? '' : String(v)}, c.fmt ? c.fmt(v, r) : fmt(v));
        if (typeof v === 'number') td.className = 'num';
      });
    });
    return t;
  }

  var runs = D.runs || [];
  var byId = {};
  runs.forEach(function (r) { byId[r.id] = r; });
  var studies = D.studies || [];

  /* ------------------------------------------------------------ overview and axes */

  (function () {
    var s = section('overview', 'Overview');
    add(s, 'p', null, D.store + ': results schema ' + D.schema + ', ' + D.nruns + ' run' + (D.nruns === 1 ? '' : 's') +
        ', ' + D.npartitions + ' partition row' + (D.npartitions === 1 ? '' : 's') +
        (studies.length ? ', ' + studies.length + ' stud' + (studies.length === 1 ? 'y' : 'ies') : '') + '.');
    if (studies.length) {
      add(s, 'h3', null, 'Studies');
      table(s, [{key: 'id', title: 'study'}, {key: 'kind', title: 'kind'}, {key: 'tasks', title: 'tasks'},
                {key: 'started', title: 'started'}, {key: 'host', title: 'host'}, {key: 'version', title: 'lbsim'},
                {key: 'file', title: 'file'}, {key: 'command', title: 'command'}], studies);
    } else if (D.studies === null) {
      missing(s, 'No studies table: a schema-1 store (studies are recorded from schema 2 on).');
    }
    /* the sweep's axes: the studies' own, else what varies across the runs */
    var axes = {};
    studies.forEach(function (st) {
      var a = parseJson(st.axes);
      if (a && typeof a === 'object') for (var k in a) axes[k] = uniq((axes[k] || []).concat(a[k]).map(String));
    });
    var from = 'the studies (axes)';
    if (!Object.keys(axes).length && runs.length) {
      from = 'the runs';
      ['trace', 'grid', 'partitioner', 'policy', 'mode', 'metric'].forEach(function (k) {
        axes[k] = uniq(runs.map(function (r) { return String(r[k]); }));
      });
      runs.forEach(function (r) {
        var l = parseJson(r.labels);
        if (l && typeof l === 'object')
          for (var k in l) if (!(k in axes) || from === 'the runs') axes[k] = uniq((axes[k] || []).concat([String(l[k])]));
      });
    }
    var keys = Object.keys(axes).sort();
    if (keys.length) {
      add(s, 'h3', null, 'Axes');
      add(s, 'p', {'class': 'intro'}, 'The values each axis takes, from ' + from + '.');
      table(s, [{key: 'axis', title: 'axis'}, {key: 'n', title: 'values'}, {key: 'values', title: ''}],
            keys.map(function (k) { return {axis: k, n: axes[k].length, values: axes[k].join(', ')}; }));
    }
  })();

  /* ------------------------------------------------------------ imbalance per step (Figure 10) */

  (function () {
    var s = section('imbalance', 'Imbalance per step',
                    'Each policy\'s imbalance (Lmax \u2212 Lavg)/Lmax at every step for one trace, grid and ' +
                    'partitioner; a triangle marks a repartition (seed 002, Figure 10). From steps.');
    var groups = {}, order = [];
    runs.forEach(function (r) {
      if (!D.steps[r.id] || !D.steps[r.id].imb.length) return;
      var k = [base(r.trace), base(r.grid), r.partitioner, r.mode].join(' \u00b7 ');
      if (!groups[k]) { groups[k] = []; order.push(k); }
      groups[k].push(r);
    });
    if (!order.length) return missing(s, 'No run has per-step data.');
    function rows(k) {
      var g = groups[k], seen = {}, out = [];
      g.forEach(function (r) { seen[r.policy] = (seen[r.policy] || 0) + 1; });
      g.forEach(function (r) {
        var name = seen[r.policy] > 1 ? r.policy + ' (#' + r.id + ')' : r.policy;
        D.steps[r.id].imb.forEach(function (p) {
          out.push({run: r.id, policy: name, step: p[0], imbalance: p[1], loadimb: p[2], rep: p[3]});
        });
      });
      return out;
    }
    var view;
    if (order.length > 1) picker(s, 'trace \u00b7 grid \u00b7 partitioner \u00b7 mode', order.map(function (k) { return [k, k]; }),
                                 function (k) { update(view, 'pts', rows(k)); });
    else add(s, 'p', {'class': 'intro'}, order[0]);
    view = chart(s, {
      width: WIDTH - 160, height: 280,
      data: [{name: 'pts', values: rows(order[0])},
             {name: 'reps', source: 'pts', transform: [{type: 'filter', expr: 'datum.rep'}]}],
      scales: [{name: 'x', type: 'linear', domain: {data: 'pts', field: 'step'}, range: 'width', zero: false},
               {name: 'y', type: 'linear', domain: {data: 'pts', field: 'imbalance'}, range: 'height', nice: true, zero: true},
               {name: 'color', type: 'ordinal', domain: {data: 'pts', field: 'policy', sort: true}, range: 'category'}],
      axes: [{orient: 'bottom', scale: 'x', title: 'step'},
             {orient: 'left', scale: 'y', title: 'imbalance (Lmax \u2212 Lavg)/Lmax', grid: true}],
      legends: [{stroke: 'color', title: 'policy', symbolType: 'stroke'}],
      marks: [{type: 'group', from: {facet: {name: 'line', data: 'pts', groupby: 'policy'}},
               marks: [{type: 'line', from: {data: 'line'},
                        encode: {update: {x: {scale: 'x', field: 'step'}, y: {scale: 'y', field: 'imbalance'},
                                          stroke: {scale: 'color', field: 'policy'}, strokeWidth: {value: 1.5}}}}]},
              {type: 'symbol', from: {data: 'reps'},
               encode: {update: {x: {scale: 'x', field: 'step'}, y: {scale: 'y', field: 'imbalance'},
                                 fill: {scale: 'color', field: 'policy'}, shape: {value: 'triangle-down'}, size: {value: 40},
                                 tooltip: {signal: "datum.policy + ': repartition before step ' + datum.step"}}}}]
    });
  })();

  /* ------------------------------------------------------------ probes (Figure 9) */

  (function () {
    var s = section('probes', 'Adaptive probe trajectory',
                    'The series a policy records: for adaptive, the step of each probe and the interval it chose ' +
                    '(seed 002, Figure 9). From series.');
    if (!D.series) return missing(s, 'No series table: a schema-1 store (policies\' series are recorded from schema 2 on).');
    var ids = Object.keys(D.series).map(Number).filter(function (id) { return byId[id]; }).sort(function (a, b) { return a - b; });
    if (!ids.length) return missing(s, 'No run recorded a series (the adaptive policy does).');
    function rows(id) { return D.series[id].map(function (p) { return {k: p[0], step: p[1], value: p[2]}; }); }
    var view;
    if (ids.length > 1) picker(s, 'run', ids.map(function (id) { return [id, runLabel(byId[id])]; }),
                               function (id) { update(view, 'pts', rows(id)); });
    else add(s, 'p', {'class': 'intro'}, runLabel(byId[ids[0]]));
    view = chart(s, {
      width: WIDTH - 100, height: 220,
      data: [{name: 'pts', values: rows(ids[0])}],
      scales: [{name: 'x', type: 'linear', domain: {data: 'pts', field: 'step'}, range: 'width', zero: true},
               {name: 'y', type: 'linear', domain: {data: 'pts', field: 'value'}, range: 'height', nice: true, zero: true}],
      axes: [{orient: 'bottom', scale: 'x', title: 'step'}, {orient: 'left', scale: 'y', title: 'interval (steps)', grid: true}],
      marks: [{type: 'line', from: {data: 'pts'}, encode: {update: {x: {scale: 'x', field: 'step'}, y: {scale: 'y', field: 'value'},
                                                                      stroke: {value: '#4c78a8'}, interpolate: {value: 'step-after'}}}},
              {type: 'symbol', from: {data: 'pts'},
               encode: {update: {x: {scale: 'x', field: 'step'}, y: {scale: 'y', field: 'value'}, fill: {value: '#4c78a8'},
                                 size: {value: 30}, tooltip: {signal: "'probe ' + datum.k + ': step ' + datum.step + ', interval ' + datum.value"}}}}]
    });
  })();

  /* ------------------------------------------------------------ per-processor views */

  (function () {
    var s = section('procs', 'Per-processor load and timeline',
                    'Each processor\'s compute time per step (procs), and a timeline of what it does: compute, then ' +
                    'communication and waiting for the slowest (the rest of the step, steps), partitioning and migration ' +
                    'at a repartition (repartitions). Steps are summed in buckets where the store holds many.');
    var ids = runs.filter(function (r) { var d = D.steps[r.id]; return d && d.procs > 0 && d.p.length; })
                  .map(function (r) { return r.id; });
    if (!ids.length) return missing(s, 'No run has per-processor data.');
    function heat(id) {
      var d = D.steps[id], out = [], u = d.unit * 1e-6; /* ms */
      d.b.forEach(function (b, j) {
        d.p[j].forEach(function (v, p) { out.push({first: b[0], end: b[1] + 1, proc: p, ms: v * u}); });
      });
      return out;
    }
    function gantt(id) {
      var d = D.steps[id], u = d.unit * 1e-9, P = d.procs, out = [];
      var g = Math.max(1, Math.ceil(d.b.length / Math.max(10, Math.floor(20000 / (4 * P)))));
      var t = 0;
      for (var j = 0; j < d.b.length; j += g) {
        var time = 0, part = 0, mig = 0, c = new Array(P).fill(0), first = d.b[j][0], last = first;
        for (var i = j; i < Math.min(j + g, d.b.length); i++) {
          var b = d.b[i];
          time += b[2]; part += b[4]; mig += b[5]; last = b[1];
          for (var p = 0; p < P; p++) c[p] += d.p[i][p];
        }
        var steps = first === last ? 'step ' + first : 'steps ' + first + '\u2013' + last;
        for (p = 0; p < P; p++) {
          var x = t;
          if (part > 0) out.push({proc: p, kind: KINDS[2], x0: x * u, x1: (x += part) * u, steps: steps});
          if (mig > 0) out.push({proc: p, kind: KINDS[3], x0: x * u, x1: (x += mig) * u, steps: steps});
          out.push({proc: p, kind: KINDS[0], x0: x * u, x1: (x + c[p]) * u, steps: steps});
          if (time > c[p]) out.push({proc: p, kind: KINDS[1], x0: (x + c[p]) * u, x1: (x + time) * u, steps: steps});
        }
        t += part + mig + time;
      }
      return out;
    }
    function note(id) {
      var d = D.steps[id];
      return runLabel(byId[id]) + ': ' + d.procs + ' processors, ' + d.b.length + ' bucket' + (d.b.length === 1 ? '' : 's') +
             ' of ' + d.k + ' step' + (d.k === 1 ? '' : 's');
    }
    var hv, gv, p;
    p = add(s, 'p', {'class': 'intro'}, note(ids[0]));
    if (ids.length > 1) picker(s, 'run', ids.map(function (id) { return [id, runLabel(byId[id])]; }), function (id) {
      p.textContent = note(id);
      update(hv, 'cells', heat(id));
      update(gv, 'bars', gantt(id));
    });
    var P0 = Math.max.apply(null, ids.map(function (id) { return D.steps[id].procs; }));
    var h = Math.max(120, Math.min(600, 12 * P0));
    add(s, 'h3', null, 'Compute per processor and step (heat map)');
    hv = chart(s, {
      width: WIDTH - 160, height: h,
      data: [{name: 'cells', values: heat(ids[0])}],
      scales: [{name: 'x', type: 'linear', domain: {fields: [{data: 'cells', field: 'first'}, {data: 'cells', field: 'end'}]},
                range: 'width', zero: false},
               {name: 'y', type: 'band', domain: {data: 'cells', field: 'proc', sort: true}, range: 'height'},
               {name: 'color', type: 'linear', domain: {data: 'cells', field: 'ms'}, range: {scheme: 'viridis'}, zero: true}],
      axes: [{orient: 'bottom', scale: 'x', title: 'step'},
             {orient: 'left', scale: 'y', title: 'processor', labelOverlap: true}],
      legends: [{fill: 'color', type: 'gradient', title: 'compute (ms)'}],
      marks: [{type: 'rect', from: {data: 'cells'},
               encode: {update: {x: {scale: 'x', field: 'first'}, x2: {scale: 'x', field: 'end'},
                                 y: {scale: 'y', field: 'proc'}, height: {scale: 'y', band: 1},
                                 fill: {scale: 'color', field: 'ms'},
                                 tooltip: {signal: "'processor ' + datum.proc + ', steps ' + datum.first + '\u2013' + (datum.end - 1) + ': ' + format(datum.ms, '.4~g') + ' ms'"}}}}]
    });
    add(s, 'h3', null, 'Timeline per processor (Gantt)');
    gv = chart(s, {
      width: WIDTH - 230, height: h,
      data: [{name: 'bars', values: gantt(ids[0])}],
      scales: [{name: 'x', type: 'linear', domain: {fields: [{data: 'bars', field: 'x0'}, {data: 'bars', field: 'x1'}]},
                range: 'width', zero: true},
               {name: 'y', type: 'band', domain: {data: 'bars', field: 'proc', sort: true}, range: 'height', padding: 0.1},
               {name: 'color', type: 'ordinal', domain: KINDS, range: KIND_COLORS}],
      axes: [{orient: 'bottom', scale: 'x', title: 'simulated time (s)'},
             {orient: 'left', scale: 'y', title: 'processor', labelOverlap: true}],
      legends: [{fill: 'color', title: 'phase'}],
      marks: [{type: 'rect', from: {data: 'bars'},
               encode: {update: {x: {scale: 'x', field: 'x0'}, x2: {scale: 'x', field: 'x1'},
                                 y: {scale: 'y', field: 'proc'}, height: {scale: 'y', band: 1},
                                 fill: {scale: 'color', field: 'kind'},
                                 tooltip: {signal: "'processor ' + datum.proc + ', ' + datum.steps + ': ' + datum.kind + ' ' + format(datum.x1 - datum.x0, '.4~g') + ' s'"}}}}]
    });
  })();

  /* ------------------------------------------------------------ total time */

  (function () {
    var s = section('totals', 'Total time by policy, partitioner and grid',
                    'Each run\'s simulated time in its parts, runs grouped by grid, then partitioner, then policy. From runs.');
    if (!runs.length) return missing(s, 'No runs.');
    var sorted = runs.slice().sort(function (a, b) {
      return cmp(base(a.grid), base(b.grid)) || cmp(base(a.trace), base(b.trace)) || cmp(a.partitioner, b.partitioner) ||
             cmp(a.policy, b.policy) || a.id - b.id;
    });
    var vals = [];
    sorted.forEach(function (r) {
      var label = base(r.grid) + ' \u00b7 ' + r.partitioner + ' \u00b7 ' + r.policy + ' (#' + r.id + ')';
      var parts = [r.compute_time_s, r.comm_time_s, r.partition_time_s, r.migration_time_s], x = 0;
      parts.forEach(function (v, i) {
        v = v || 0;
        vals.push({label: label, kind: KINDS[i], x0: x, x1: x + v, v: v, total: r.total_time_s});
        x += v;
      });
    });
    chart(s, {
      width: WIDTH - 420, height: Math.max(60, 18 * sorted.length),
      data: [{name: 'bars', values: vals}],
      scales: [{name: 'x', type: 'linear', domain: {data: 'bars', field: 'x1'}, range: 'width', nice: true, zero: true},
               {name: 'y', type: 'band', domain: sorted.map(function (r) {
                 return base(r.grid) + ' \u00b7 ' + r.partitioner + ' \u00b7 ' + r.policy + ' (#' + r.id + ')'; }),
                range: 'height', padding: 0.15},
               {name: 'color', type: 'ordinal', domain: KINDS, range: KIND_COLORS}],
      axes: [{orient: 'bottom', scale: 'x', title: 'simulated time (s)', grid: true},
             {orient: 'left', scale: 'y', labelLimit: 320}],
      legends: [{fill: 'color', title: 'part'}],
      marks: [{type: 'rect', from: {data: 'bars'},
               encode: {update: {x: {scale: 'x', field: 'x0'}, x2: {scale: 'x', field: 'x1'}, y: {scale: 'y', field: 'label'},
                                 height: {scale: 'y', band: 1}, fill: {scale: 'color', field: 'kind'},
                                 tooltip: {signal: "datum.label + ': ' + datum.kind + ' ' + format(datum.v, '.4~g') + ' s of ' + format(datum.total, '.4~g') + ' s'"}}}}]
    });
  })();

  /* ------------------------------------------------------------ MinEX against METIS (seed 003) */

  (function () {
    var s = section('quality', 'Partition quality: MinEX against METIS',
                    'lbsim partition\'s rows (MinEX\'s model, seed 003): MaxQWgt, the heaviest processor\'s projected ' +
                    'time for the step, is the run time; LoadImb = MaxQWgt/WSysLL. From partitions.');
    if (D.partitions === null) return missing(s, 'No partitions table: a schema-1 store (lbsim partition --results writes it from schema 2 on).');
    if (!D.partitions.length) return missing(s, 'No partition rows (lbsim partition --results adds them).');
    var groups = {}, order = [], names = [];
    D.partitions.forEach(function (r) {
      var k = [r.trace, r.grid, r.step, r.study || ''].join('\u0001');
      if (!groups[k]) { groups[k] = {trace: base(r.trace), grid: base(r.grid), step: r.step, procs: r.procs, by: {}}; order.push(k); }
      groups[k].by[r.partitioner] = r;
      names.push(r.partitioner);
    });
    names = uniq(names).sort();
    var minex = names.filter(function (n) { return /^minex/.test(n); }), metis = names.filter(function (n) { return /^metis/.test(n); });
    var cols = [{key: 'trace', title: 'trace'}, {key: 'grid', title: 'grid'}, {key: 'step', title: 'step'}, {key: 'procs', title: 'P'}];
    names.forEach(function (n) {
      cols.push({title: n + ' MaxQWgt ms', get: function (g) { var r = g.by[n]; return r && r.maxqwgt_s !== null ? r.maxqwgt_s * 1e3 : null; }});
      cols.push({title: n + ' LoadImb', get: function (g) { var r = g.by[n]; return r ? r.loadimb : null; }});
    });
    minex.forEach(function (a) {
      metis.forEach(function (b) {
        cols.push({title: a + ' / ' + b, help: 'MaxQWgt ratio: below 1, MinEX projects the shorter step',
                   get: function (g) { var x = g.by[a], y = g.by[b]; return x && y && y.maxqwgt_s ? x.maxqwgt_s / y.maxqwgt_s : null; }});
      });
    });
    add(s, 'h3', null, 'Projected run time of one step and LoadImb');
    table(s, cols, order.map(function (k) { return groups[k]; }));
    add(s, 'h3', null, 'Every partition row');
    table(s, [{key: 'id', title: 'id'}, {key: 'trace', title: 'trace', fmt: base}, {key: 'grid', title: 'grid', fmt: base},
              {key: 'step', title: 'step'}, {key: 'partitioner', title: 'partitioner'}, {key: 'procs', title: 'P'},
              {key: 'maxqwgt_s', title: 'MaxQWgt s'}, {key: 'wsysll_s', title: 'WSysLL s'}, {key: 'loadimb', title: 'LoadImb'},
              {key: 'work_imbalance', title: 'work imb.'}, {key: 'tolerance', title: 'tolerance'}, {key: 'wgt_s', title: 'Wgt s'},
              {key: 'comm_s', title: 'Comm s'}, {key: 'remap_s', title: 'Remap s'}, {key: 'edge_cut', title: 'edge cut'},
              {key: 'moved', title: 'moved'}, {key: 'wall_s', title: 'wall s'}], D.partitions);
  })();

  /* ------------------------------------------------------------ the grid */

  /* The resolved grid configuration (INI text after overrides): clusters, node types, links. */
  function parseGrid(text) {
    var g = {grid: {}, nodetypes: {}, clusters: [], links: []}, cur = null;
    String(text).split(/\r?\n/).forEach(function (line) {
      line = line.replace(/^\s+|\s+$/g, '');
      if (!line || line[0] === ';' || line[0] === '#') return;
      var m = /^\[\s*([^\]]*?)\s*\]$/.exec(line);
      if (m) {
        var w = m[1].split(/\s+/);
        if (w[0] === 'grid') cur = g.grid;
        else if (w[0] === 'nodetype') cur = g.nodetypes[w[1]] = {};
        else if (w[0] === 'cluster') { cur = {name: w[1]}; g.clusters.push(cur); }
        else if (w[0] === 'link') { cur = {a: w[1], b: w[2]}; g.links.push(cur); }
        else cur = null;
        return;
      }
      var kv = /^([^=]+?)\s*=\s*(.*)$/.exec(line);
      if (kv && cur) cur[kv[1]] = kv[2].replace(/\s+[;#].*$/, '');
    });
    return g;
  }

  function gridSpec(g) {
    var n = g.clusters.length, nodes = [], edges = [], at = {};
    var R = n > 1 ? 150 : 0, cx = 260, cy = 190;
    g.clusters.forEach(function (c, i) {
      var t = g.nodetypes[c.nodetype || 'default'] || {};
      var speed = t.speed ? Number(t.speed) : t.slowdown ? 1 / Number(t.slowdown) : 1, cores = Number(t.cores || 1);
      var a = 2 * Math.PI * i / Math.max(1, n) - Math.PI / 2;
      var node = {name: c.name, x: cx + R * Math.cos(a), y: cy + R * Math.sin(a), procs: Number(c.nodes || 0) * cores, speed: speed,
                  label: c.name + ': ' + c.nodes + ' node' + (Number(c.nodes) === 1 ? '' : 's') + (cores > 1 ? ' x ' + cores + ' cores' : '') +
                         ', speed ' + fmt(speed, 3),
                  inside: (c.latency_us || 1) + ' us, ' + (c.bandwidth_gbps || 10) + ' Gb/s' + (c.shared === 'true' ? ', shared' : '')};
      nodes.push(node);
      at[c.name] = node;
    });
    var given = {};
    g.links.forEach(function (l) {
      if (!at[l.a] || !at[l.b]) return;
      given[l.a + '\u0001' + l.b] = given[l.b + '\u0001' + l.a] = 1;
      edges.push({x: at[l.a].x, y: at[l.a].y, x2: at[l.b].x, y2: at[l.b].y, gbps: Number(l.bandwidth_gbps), link: 1,
                  label: l.latency_us + ' us, ' + l.bandwidth_gbps + ' Gb/s' + (l.shared === 'false' ? '' : ', shared')});
    });
    var lat = g.grid.inter_latency_us || 100, bw = g.grid.inter_bandwidth_gbps || 1;
    for (var i = 0; i < n; i++)
      for (var j = i + 1; j < n; j++) {
        var a = nodes[i], b = nodes[j];
        if (given[a.name + '\u0001' + b.name]) continue;
        edges.push({x: a.x, y: a.y, x2: b.x, y2: b.y, gbps: Number(bw), link: 0, label: lat + ' us, ' + bw + ' Gb/s (default)'});
      }
    return {
      width: 620, height: 400,
      data: [{name: 'nodes', values: nodes}, {name: 'edges', values: edges}],
      scales: [{name: 'size', type: 'sqrt', domain: {data: 'nodes', field: 'procs'}, range: [200, 3000], zero: true},
               {name: 'color', type: 'linear', domain: {data: 'nodes', field: 'speed'}, range: {scheme: 'blues'}, zero: true},
               {name: 'bw', type: 'log', domain: {data: 'edges', field: 'gbps'}, range: [1, 6]}],
      legends: [{fill: 'color', type: 'gradient', title: 'speed'}],
      marks: [{type: 'rule', from: {data: 'edges'},
               encode: {update: {x: {field: 'x'}, y: {field: 'y'}, x2: {field: 'x2'}, y2: {field: 'y2'},
                                 strokeWidth: edges.length ? {scale: 'bw', field: 'gbps'} : {value: 1},
                                 stroke: {value: '#888'}, strokeDash: {signal: 'datum.link ? [] : [4, 4]'},
                                 tooltip: {field: 'label'}}}},
              {type: 'text', from: {data: 'edges'},
               encode: {update: {x: {signal: '(datum.x + datum.x2) / 2'}, y: {signal: '(datum.y + datum.y2) / 2 - 4'},
                                 text: {field: 'label'}, align: {value: 'center'}, fontSize: {value: 10}, fill: {value: '#555'}}}},
              {type: 'symbol', from: {data: 'nodes'},
               encode: {update: {x: {field: 'x'}, y: {field: 'y'}, size: {scale: 'size', field: 'procs'},
                                 fill: {scale: 'color', field: 'speed'}, stroke: {value: '#333'},
                                 tooltip: {signal: "datum.label + '; inside: ' + datum.inside"}}}},
              {type: 'text', from: {data: 'nodes'},
               encode: {update: {x: {field: 'x'}, y: {signal: 'datum.y + 36'}, text: {field: 'label'}, align: {value: 'center'},
                                 fontSize: {value: 11}, fontWeight: {value: 'bold'}}}},
              {type: 'text', from: {data: 'nodes'},
               encode: {update: {x: {field: 'x'}, y: {signal: 'datum.y + 49'}, text: {signal: "'inside: ' + datum.inside"},
                                 align: {value: 'center'}, fontSize: {value: 10}, fill: {value: '#555'}}}}]
    };
  }

  (function () {
    var s = section('grid', 'The grid: clusters and links',
                    'Each cluster (size: processors; colour: relative speed) and the links between them (width: ' +
                    'bandwidth; dashed: the [grid] inter-cluster default), from the resolved configuration the runs ' +
                    'recorded (runs.config, partitions.config).');
    var cfgs = D.configs || [];
    if (!cfgs.length) {
      var grids = uniq(runs.map(function (r) { return String(r.grid); }));
      return missing(s, 'The store records no grid configuration (schema-1 stores keep only the grid\'s path: ' + grids.join(', ') + ').');
    }
    var view;
    if (cfgs.length > 1) picker(s, 'grid', cfgs.map(function (c, i) { return [i, base(c[0]) + ' (' + (i + 1) + ')']; }), function (i) {
      var sp = gridSpec(parseGrid(cfgs[i][1]));
      update(view, 'nodes', sp.data[0].values);
      update(view, 'edges', sp.data[1].values);
    });
    else add(s, 'p', {'class': 'intro'}, base(cfgs[0][0]));
    view = chart(s, gridSpec(parseGrid(cfgs[0][1])));
  })();

  /* ------------------------------------------------------------ the runs */

  (function () {
    var s = section('runs', 'Runs', 'Every run of the store (click a header to sort). From runs.');
    if (!runs.length) return missing(s, 'No runs (only partition rows).');
    var cols = [{key: 'id', title: 'id'}, {key: 'study', title: 'study'}, {key: 'trace', title: 'trace', fmt: base},
                {key: 'grid', title: 'grid', fmt: base}, {key: 'partitioner', title: 'partitioner'}, {key: 'policy', title: 'policy'},
                {key: 'mode', title: 'mode'}, {key: 'procs', title: 'P'}, {key: 'steps', title: 'steps'},
                {key: 'total_time_s', title: 'total s'}, {key: 'compute_time_s', title: 'compute s'},
                {key: 'comm_time_s', title: 'comm. s'}, {key: 'partition_time_s', title: 'partition s'},
                {key: 'migration_time_s', title: 'migration s'}, {key: 'repartitions', title: 'repart.'},
                {key: 'mean_imbalance', title: 'mean imb.'}, {key: 'max_imbalance', title: 'max imb.'},
                {key: 'mean_loadimb', title: 'LoadImb'}, {key: 'moved_elements', title: 'moved'},
                {key: 'gap_to_optimal', title: 'gap to optimal', help: 'total / optimum - 1'}];
    if (!runs.some(function (r) { return r.study; })) cols.splice(1, 1);
    if (!runs.some(function (r) { return r.gap_to_optimal !== null && r.gap_to_optimal !== undefined; })) cols.pop();
    table(s, cols, runs);
  })();

  /* ------------------------------------------------------------ done */

  function finish() {
    status.setAttribute('data-charts', String(rendered));
    status.setAttribute('data-errors', String(window.lbsErrors.length));
    status.setAttribute('data-ms', String(Math.round(performance.now()))); /* since navigation began */
    status.setAttribute('data-done', '1');
    status.querySelector('span').textContent = rendered + ' of ' + expected + ' charts rendered, ' +
      window.lbsErrors.length + ' error' + (window.lbsErrors.length === 1 ? '' : 's');
  }
  Promise.all(pending).then(finish, finish);
})();
