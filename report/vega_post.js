/* vega_post.js - what Vega's own index does: registers the transforms with the dataflow and
 * gathers the API the report uses into window.vega. */
(function () {
  var m = window.lbsVegaModules;
  m['vega-util'].extend(m['vega-dataflow'].transforms, m['vega-transforms'], m['vega-view-transforms'],
                        m['vega-encode']);
  window.vega = {version: '5 (Debian libjs-vega)', View: m['vega-view'].View, parse: m['vega-parser'].parse,
                 loader: m['vega-loader'].loader};
  delete window.define;
  delete window.lbsVegaModules;
})();
