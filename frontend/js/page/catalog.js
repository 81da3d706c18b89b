// The catalog (what the server runs, on how many ranks) for the controls, the training and the
// prediction panel; the cluster panel, and the catalog again when the world size changes.

import { api } from "rs/core/api.js";
import { say } from "rs/core/dom.js";
import { plotly } from "rs/panels/charts.js";
import { showCluster } from "rs/panels/cluster.js";
import { showPredict } from "rs/panels/predict.js";

export class Catalog {
  /** The live messages it hears, by type. */
  routes = { snapshot: (m) => this.cluster(m.cluster), cluster: (m) => this.cluster(m) };

  constructor({ state, controls, training }) { Object.assign(this, { state, controls, training }); }

  async refresh() {
    const catalog = await api("/api/catalog"), { state } = this;
    state.worldSize = catalog.world_size;
    state.maxRanks = catalog.max_ranks;
    state.ended = new Set(catalog.run_states.ended);
    this.controls.setCatalog(catalog);
    this.training.setCatalog(catalog);
    showPredict(catalog, plotly).catch(() => {}); // it says its own errors
  }

  cluster(cluster) {
    showCluster(cluster);
    if (cluster.world_size !== this.state.worldSize) {
      this.state.worldSize = cluster.world_size;
      this.refresh();
    }
  }

  /** The catalog at last: a server that is restarting, or a lost request, is asked again. */
  async first(delay = 250) {
    while (!(await this.refresh().then(() => true, () => false))) {
      say("connection", "reconnecting…");
      await new Promise((wake) => setTimeout(wake, delay));
      delay = Math.min(delay * 2, 5000);
    }
  }
}
