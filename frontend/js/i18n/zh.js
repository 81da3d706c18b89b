// Chinese (i18n.js says how these are used). The seeds' terms: 集合通信, 块, 梯度, 节点; "rank" stays as the
// seed writes it ("所有 rank"), and op, collective and algorithm names stay in English (reduce-scatter).

export default {
  rank: "rank {n}",
  comma: "，",
  semicolon: "；",
  templates: {
    // the steps' captions (worker_agent/core/algorithms)
    "piece {n1}: {t1}": "第 {n1} 片：{t1}",
    "each rank beyond the largest power of two, {n1}, combines its buffer into a partner's":
      "超出最大 2 的幂（{n1}）的每个 rank 把自己的缓冲区合并到搭档的缓冲区中",
    "each rank beyond the largest power of two, {n1}, combines its whole buffer into a partner's":
      "超出最大 2 的幂（{n1}）的每个 rank 把整个缓冲区合并到搭档的缓冲区中",
    "each rank beyond the largest power of two, {n1}, hands its block to a partner":
      "超出最大 2 的幂（{n1}）的每个 rank 把自己的块交给搭档",
    ["every other rank still holding a partial result sends it to the rank {n1} place nearer the root, "
      + "which combines it with its own"]:
      "仍持有部分结果的其他 rank 把它发给离根近 {n1} 位的 rank，后者把它与自己的合并",
    ["every other rank still holding a partial result sends it to the rank {n1} places nearer the root, "
      + "which combines it with its own"]:
      "仍持有部分结果的其他 rank 把它发给离根近 {n1} 位的 rank，后者把它与自己的合并",
    "every partner hands the finished block to the rank it folded in": "每个搭档把完成的块交还给并入它的 rank",
    "every partner sends all the blocks to the rank it folded in": "每个搭档把所有块发给并入它的 rank",
    "every partner sends the finished result back to the rank it folded in": "每个搭档把最终结果发回给并入它的 rank",
    "every rank at depth {n1} sends its partial result to its parent, which combines it with its own":
      "深度 {n1} 的每个 rank 把部分结果发给父节点，父节点把它与自己的合并",
    "every rank at depth {n1} sends the result down to its children": "深度 {n1} 的每个 rank 把结果向下发给子节点",
    "every rank holding blocks hands the far half of them to the rank {n1} place further from the root":
      "持有块的每个 rank 把其中远端的一半交给离根再远 {n1} 位的 rank",
    "every rank holding blocks hands the far half of them to the rank {n1} places further from the root":
      "持有块的每个 rank 把其中远端的一半交给离根再远 {n1} 位的 rank",
    "every rank keeps the block addressed to itself": "每个 rank 保留发给自己的块",
    "every rank passes a finished chunk to its right neighbour, which copies it":
      "每个 rank 把一个完成的块传给右邻居，右邻居复制它",
    "every rank passes a finished segment ({n1} chunks) to its right neighbour, which copies it":
      "每个 rank 把一个完成的段（{n1} 个块）传给右邻居，右邻居复制它",
    "every rank sends one chunk to its right neighbour, which combines it with its own":
      "每个 rank 把一个块发给右邻居，右邻居把它与自己的合并",
    "every rank sends one segment ({n1} chunks) to its right neighbour, which combines it with its own":
      "每个 rank 把一个段（{n1} 个块）发给右邻居，右邻居把它与自己的合并",
    "every rank sends half of its part to the rank {n1} away, which combines it with its own":
      "每个 rank 把自己那部分的一半发给相距 {n1} 的 rank，后者把它与自己的合并",
    "every rank sends its finished part to the rank {n1} away, doubling what each holds":
      "每个 rank 把完成的部分发给相距 {n1} 的 rank，各自持有的数据翻倍",
    "every rank sends the blocks that belong on the other side to the rank {n1} away, which combines them":
      "每个 rank 把属于另一侧的块发给相距 {n1} 的 rank，由它合并",
    "every rank swaps all the blocks it holds with the rank {n1} away": "每个 rank 与相距 {n1} 的 rank 交换它持有的所有块",
    "every rank swaps its buffer with the rank {n1} away (its rank XOR {n2}) and combines":
      "每个 rank 与相距 {n1} 的 rank（自己的 rank XOR {n2}）交换缓冲区并合并",
    "every rank sends the block addressed to the rank {n1} ahead of it": "每个 rank 把发往前方第 {n1} 个 rank 的块发出",
    "every rank signals the rank {n1} ahead of it, passing on who it has heard from":
      "每个 rank 向前方第 {n1} 个 rank 发信号，并转告它已收到哪些 rank 的信号",
    "every rank sends its block to {r1}": "每个 rank 把自己的块发给 {r1}",
    "every rank sends its buffer to {r1}, which combines them": "每个 rank 把缓冲区发给 {r1}，由它合并",
    "every worker sends its buffer to the master, {r1}, which combines them": "每个工作节点把缓冲区发给主节点 {r1}，由它合并",
    "the master, {r1}, sends the result back to every worker": "主节点 {r1} 把结果发回给每个工作节点",
    "pull weights (fan-out): every server sends its shard of the weights to every worker":
      "拉取权重（pull，fan-out）：每个服务器把自己那份权重分片发给每个工作节点",
    "pull weights (fan-out): the server, {r1}, sends the weights to every worker":
      "拉取权重（pull，fan-out）：服务器 {r1} 把权重发给每个工作节点",
    ["push gradients (fan-in), aggregate and update (under SUM, w ← w − η·Σg): every worker sends each "
      + "shard of −η·g (η = 1) to that shard's server, which combines it with its shard of the weights"]:
      "推送梯度（push，fan-in）、聚合并更新（SUM 时 w ← w − η·Σg）：每个工作节点把 −η·g（η = 1）的每个分片发给该分片的服务器，服务器把它与自己那份权重合并",
    ["push gradients (fan-in), aggregate and update (under SUM, w ← w − η·Σg): every worker sends −η·g "
      + "(η = 1) to the server, {r1}, which combines each with the weights as it lands"]:
      "推送梯度（push，fan-in）、聚合并更新（SUM 时 w ← w − η·Σg）：每个工作节点把 −η·g（η = 1）发给服务器 {r1}，服务器每收到一份就把它与权重合并",
    "{r1} passes the data on to {r2}": "{r1} 把数据继续传给 {r2}",
    "{r1} sends every rank its own block": "{r1} 把每个 rank 各自的块发给它",
    "{r1} sends its buffer to every other rank": "{r1} 把自己的缓冲区发给其他每个 rank",
    "{r1} sends its buffer to {r2}": "{r1} 把自己的缓冲区发给 {r2}",
    "ranks pass every block they hold {n1} place back toward the root": "各 rank 把持有的所有块朝根的方向回传 {n1} 位",
    "ranks pass every block they hold {n1} places back toward the root": "各 rank 把持有的所有块朝根的方向回传 {n1} 位",
    "the ranks holding the data send it {n1} place further from the root, doubling the holders":
      "持有数据的 rank 把它发给离根再远 {n1} 位的 rank，持有者翻倍",
    "the ranks holding the data send it {n1} places further from the root, doubling the holders":
      "持有数据的 rank 把它发给离根再远 {n1} 位的 rank，持有者翻倍",
    // a traced run's step (worker_agent/user/rebuild.py): the lines that sent, received and wrote
    "sent at {s1}, received at line {n1}": "在 {s1} 发送，在第 {n1} 行接收",
    "sent at {s1}, received at line {n1}, added in at line {n2}": "在 {s1} 发送，在第 {n1} 行接收，在第 {n2} 行累加",
    "sent at {s1}, received at line {n1}, copied in at line {n2}": "在 {s1} 发送，在第 {n1} 行接收，在第 {n2} 行复制",
    "line {n1}": "第 {n1} 行",
    "lines {s1}": "第 {s1} 行",
    "{r1}": "{r1}",
    // the page's sentences around them (panels.js, runs.js, controls.js)
    "Step {n1} of {n2} · {c1}: {c2}": "第 {n1} 步（共 {n2} 步）· {c1}：{c2}",
    "{s1} by {s2}: 1 step. Every rank starts with its input.": "{s1}（{s2}）：共 1 步。每个 rank 从自己的输入开始。",
    "{s1} by {s2}: {n1} steps. Every rank starts with its input.": "{s1}（{s2}）：共 {n1} 步。每个 rank 从自己的输入开始。",
    "{s1} by {s2} failed before its first step (Before / after says why).":
      "{s1}（{s2}）在第一步之前失败了（原因见“前 / 后”）。",
    "{s1} ({s2}): the backend's own call, timed as a whole.": "{s1}（{s2}）：后端自己的调用，整体计时。",
    "After step {n1}, every rank divides its sum by P = {n2}: the average, the run's output.":
      "第 {n1} 步之后，每个 rank 把和除以 P = {n2}：得到的平均值就是本次运行的输出。",
    "step {n1} / {n2}": "第 {n1} / {n2} 步",
    "{s1} · {s2} · {n1} ranks · {s3}": "{s1} · {s2} · {n1} 个 rank · {s3}",
    "{c1} ✓": "{c1} ✓",
    "{c1} ✗": "{c1} ✗",
    "R runs it · A algorithm · O op · P {c1} · 1–0 [ ] pick · Q asks the room":
      "R 运行 · A 算法 · O 运算 · P {c1} · 1–0 [ ] 选择 · Q 向全场提问",
    // the formula line under the stage (formulas.js; the "what" of algorithms/formulas.py)
    "{s1} = {s2} sent by every rank": "{s1} = {s2}：每个 rank 发送的量",
    "{s1} = {s2} sent by the root": "{s1} = {s2}：根发送的量",
    "{s1} = {s2} into the master": "{s1} = {s2}：流入主节点的量",
    "{s1} = {s2} into the root": "{s1} = {s2}：流入根的量",
    "{s1} = {s2} on the critical path": "{s1} = {s2}：关键路径上的量",
    "{s1} = {s2} on the critical path (up the tree, then down)": "{s1} = {s2}：关键路径上的量（沿树向上，再向下）",
    "{s1} = {s2} sent by each server (and as much received)": "{s1} = {s2}：每个服务器发送的量（接收的同样多）",
    "({s1}) · measured {s2}": "（{s1}）· 实测 {s2}",
    "({s1}) · measured when the run ends": "（{s1}）· 运行结束后实测",
    "{s1} · {s2} · {n1} ranks · {s3} · lecture data: a digit a block":
      "{s1} · {s2} · {n1} 个 rank · {s3} · 讲课数据：每块一个数字",
    "{s1} = {s2} sent by the root, in ⌈log2 P⌉ steps": "{s1} = {s2}：根分 ⌈log2 P⌉ 步发送的量",
    "{s1} = {s2} into the root, in ⌈log2 P⌉ steps": "{s1} = {s2}：分 ⌈log2 P⌉ 步流入根的量",
    // the panels beside and under the stage (a phone shows them under it)
    "Run {s1}": "运行 {s1}",
    "sent {s1} · got {s2}": "发送 {s1} · 接收 {s2}",
    // polls (polls.js, server/polls.py)
    "What does {r1} hold after step {n1}?": "第 {n1} 步之后，{r1} 持有什么？",
    "How many bytes cross the busiest link ({s1} by {s2}, P={n1}, N={s3})?":
      "最繁忙的链路上传输多少字节？（{s1}，{s2}，P={n1}，N={s3}）",
    "Which finishes first: {s1} of {s2} on {n1} ranks?": "哪个算法先完成：{n1} 个 rank 上 {s2} 的 {s1}？",
    "· your vote: {s1}": "· 你的投票：{s1}",
    "{n1} votes": "{n1} 票",
    "· {c1}": "· {c1}",
  },
  words: {
    // phases
    "local copy": "本地复制", exchange: "交换", fold: "折叠", unfold: "展开", signal: "信号", pull: "拉取（pull）",
      push: "推送（push）", send: "发送",
    sent: "发送", received: "接收", "ring against tree all_reduce under one straggler":
      "一个 straggler 下 ring 与 tree 的 all_reduce 对比",
    // run states, roles, the connection
    queued: "排队中", running: "运行中", done: "完成", failed: "失败", cancelled: "已取消", dumped: "转储",
    presenter: "主讲人", audience: "听众", "audience · following the presenter": "听众 · 跟随主讲人",
    "connecting…": "连接中…", live: "实时", "reconnecting…": "重新连接中…",
    // the header, panels and player
    Jobs: "作业", "light / dark": "浅色 / 深色", Lecture: "讲课", "keyboard shortcuts": "键盘快捷键",
    "watched jobs: your own torchrun job's collectives (J)": "监视的作业：你自己的 torchrun 作业的集合通信 (J)",
    "lecture mode (F: fullscreen, ?: keys)": "讲课模式（F：全屏，?：按键）",
    "Run a collective": "运行一个集合通信", Run: "运行", "Train a model across the ranks": "在各 rank 上训练模型",
    Train: "训练", History: "历史", "No run yet": "还没有运行", "stop this run at its next iteration": "在下一次迭代时停止本次运行",
    Cancel: "取消", "show what the presenter shows again": "重新显示主讲人的画面", "Follow presenter": "跟随主讲人",
    "ranks and their buffers": "各 rank 及其缓冲区", "to the inputs": "回到输入", "step back (←)": "后退一步 (←)",
    "play / pause (Space)": "播放 / 暂停 (Space)", "step forward (→)": "前进一步 (→)", step: "步", inputs: "输入",
    speed: "速度", "follow live": "实时跟随", phases: "阶段", "This step": "本步", "Before / after": "前 / 后",
    Traffic: "流量", "open ui.perfetto.dev and hand it this run's trace": "打开 ui.perfetto.dev 并交给它本次运行的 trace",
    "Open in Perfetto": "在 Perfetto 中打开", "download trace": "下载 trace", "Export HTML": "导出 HTML",
    "Copy link": "复制链接", "Link copied": "链接已复制", "Poll: predict, then reveal": "投票：先预测，再揭晓",
    Training: "训练", "stop this training after its current step": "当前步完成后停止训练",
    "Open its gradient sync on the stage": "在画面上打开这一步的梯度同步", "Methods compared": "方法对比",
    "Watched jobs": "监视的作业", "back to the stage (J)": "回到画面 (J)", Close: "关闭",
    "Collectives per rank": "每个 rank 的集合通信", "Latest: last rank and lag": "最新：最后的 rank 与延迟",
    "Totals per op and group": "按运算和组统计", "p2p links": "p2p 链路", Sweep: "扫描", "Predict at scale": "按规模预测",
    Cluster: "集群", cpu: "CPU", memory: "内存", gpu: "GPU", "the audience's link: scan it": "听众链接：扫码打开",
    // the keys dialog
    Keys: "按键", "play / pause": "播放 / 暂停", "step back / forward": "后退 / 前进一步", "faster / slower": "加快 / 减慢",
    "run what is picked (Enter after a number: that step)": "运行所选（数字后按 Enter：跳到该步）",
    "pick a collective (] next, [ previous)": "选择集合通信（] 下一个，[ 上一个）", "next algorithm": "下一个算法",
    "next reduction op": "下一个规约运算", "lecture data on / off (a digit a block)": "讲课数据 开 / 关（每块一个数字）",
    "compare: bytes against P": "对比：字节数随 P 变化", "the training's charts": "训练图表", "watched jobs": "监视的作业",
    "the audience's link as a QR code": "听众链接的二维码", "to the inputs / the result": "回到输入 / 跳到结果",
      "to step 3": "跳到第 3 步",
    "ask the room (1–4 a question; ↑ ↓ ← → its rank and step); the stage holds":
      "向全场提问（1–4 选问题；↑ ↓ ← → 选 rank 和步）；画面暂停",
    "reveal the answer, play on": "揭晓答案并继续播放", "close the poll": "关闭投票", fullscreen: "全屏",
    "close the poll, this help, J, C, T, K": "关闭投票、本帮助、J、C、T、K",
    "group: all, evens, odds, first half, one per node": "分组：全部、偶数、奇数、前一半、每个节点一个",
    "the next root": "下一个根", "half / twice the count": "元素数减半 / 加倍",
    "the parameter server's S (servers)": "参数服务器的 S（服务器数）",
    "inputs: a digit, its rank, [1, 10, 100, 1000]·rank, r2c3":
      "输入：一个数字、自己的 rank、[1, 10, 100, 1000]·rank、r2c3",
    "the seed's formulas; again: total, busiest link": "讲义里的公式；再按：总量、最忙的链路",
    train: "训练", "a training step's gradient sync": "训练步的梯度同步", "export as HTML": "导出为 HTML",
    "lecture mode": "讲课模式", "this help": "本帮助", language: "语言",
    // polls
    "Ask the room about this run": "就本次运行向全场提问", "How many bytes cross the busiest link?": "最繁忙的链路上传输多少字节？",
    "Which rank moves the most bytes?": "哪个 rank 传输的字节最多？",
    "Which algorithm finishes first at this size and P?": "在这个大小和 P 下，哪个算法先完成？",
    "1–4 asks · ↑ ↓ rank · ← → step · Esc cancels": "1–4 提问 · ↑ ↓ rank · ← → 步 · Esc 取消",
    "Your vote counted": "你的投票已计入", "You voted already": "你已经投过票了", "Voting has closed": "投票已结束",
    "The stage holds: Enter reveals the answer": "画面暂停：按 Enter 揭晓答案",
      "Enter reveals · Esc closes": "Enter 揭晓 · Esc 关闭",
    "Esc closes": "Esc 关闭", "Tap your answer: one vote a phone": "点选你的答案：每部手机一票", "You got it ✓": "答对了 ✓",
    "Not this time": "这次没答对", "1 vote": "1 票", "lecture data": "讲课数据", "own data": "自己的数据",
    // the panels beside and under the stage (a phone shows them under it)
    "Sweep sizes, every algorithm": "扫描各种大小，所有算法",
    "Watching only: open the presenter link (the one with ?token=) to run collectives.":
      "仅观看：要运行集合通信，请打开主讲人链接（带 ?token= 的那个）。",
    Perturb: "扰动",
    Straggler: "掉队者（straggler）",
    "delay (s)": "延迟 (s)",
    "Slow link": "慢链路",
    "and rank": "和 rank",
    Hang: "挂起（hang）",
    "at step": "在第几步",
    "Run with these": "按此运行",
    method: "方法",
    steps: "步数",
    "learning rate": "学习率",
    batch: "批大小",
    "Compare all methods": "对比所有方法",
    rank: "rank",
    in: "输入",
    out: "输出",
    "vs native": "与 native 对比",
    time: "时间",
    predicted: "预测",
    "total sent": "发送总量",
    "busiest link": "最繁忙的链路",
    ["Sweep sizes (in Run) to plot time and busbw against size for every algorithm, with the alpha-beta "
      + "model over the measurements. A sweep's runs stay off the stage and the audience's pages."]:
      "扫描各种大小（在“运行”中），为每个算法画出时间和 busbw 随大小的变化，并叠加基于测量的 alpha-beta 模型。扫描的运行不会出现在画面和听众页面上。",
    collective: "集合通信",
    "size for P curve": "P 曲线的大小",
    parameters: "参数量",
    Predict: "预测",
  },
};
