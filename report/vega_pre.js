/* vega_pre.js - a minimal AMD loader for Debian's Vega modules (UMD builds whose browser-global
 * branch would give every module an empty object for its dependencies). report/embed.c puts
 * "define.next='vega-NAME';" before each module; the modules come in dependency order. */
(function () {
  var mods = {}, alias = {'vega-selections': 'vega-selection'};
  function define(deps, factory) {
    var name = define.next, exp = {};
    var args = deps.map(function (d) {
      if (d === 'exports') return exp;
      d = alias[d] || d;
      if (!(d in mods)) throw new Error('lbsim report: Vega module ' + d + ' missing (needed by ' + name + ')');
      return mods[d];
    });
    factory.apply(null, args);
    mods[name] = exp;
  }
  define.amd = true;
  window.define = define;
  window.lbsVegaModules = mods;
})();
