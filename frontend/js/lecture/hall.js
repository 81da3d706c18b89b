// K: the audience's link as a QR code, the size of the screen, for a hall to scan (the presenter's).

import { api } from "rs/core/api.js";
import { $, reason } from "rs/core/dom.js";

export class Hall {
  constructor(state) { this.state = state; }

  async toggle() {
    const box = $("hall");
    if (box.open) return box.close();
    if (!this.state.presenter) return;
    try {
      const { audience, qr_svg: qr } = await api("/api/lecture");
      box.querySelector(".qr").innerHTML = qr; // the server's own SVG (segno), not a client's
      box.querySelector("p").textContent = audience[0];
      box.showModal();
    } catch (err) {
      $("caption").replaceChildren("No audience link: ", reason(err));
    }
  }
}
