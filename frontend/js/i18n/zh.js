// Chinese (i18n.js says how these are used). The seeds' terms: 集合通信, 块, 梯度, 节点, 通信组 (the note's
// init_process_group); "rank" stays as the seed writes it ("所有 rank", 本地 rank, 全局 rank), and op,
// collective and algorithm names stay in English (reduce-scatter). A job that runs is a 任务 (作业 reads as
// homework); world size is 进程总数.

export default {
  rank: "rank {n}",
  comma: "，",
  semicolon: "；",
  colon: "：",
  templates: {
    // the steps' captions (worker_agent/core/algorithms)
    "piece {n1}: {t1}": "第 {n1} 片：{t1}",
    // a lesson's stage (lecture/lesson.js)
    "This stage asks for {n1} ranks and the cluster has {n2}: start it with ringside up -n {n3}":
      "此阶段需要 {n1} 个 rank，而集群只有 {n2} 个：请用 ringside up -n {n3} 启动",
    "Resizing the world to {n1} ranks…":
      "正在把进程总数调整为 {n1} 个 rank…",
    "This stage asks for {n1} ranks, over the {n2} the world may grow to: start it with ringside up --max-ranks {n3}":
      "此阶段需要 {n1} 个 rank，超过进程总数最多可增长到的 {n2} 个：请用 ringside up --max-ranks {n3} 启动",
    "1 to {n1}: the world grows or shrinks in place; the group field runs on some of them.":
      "1 到 {n1}：进程总数原地增减，无需重启；通信组一栏只在其中一部分上运行。",
    "On ranks 0 to {n1} of the cluster's {n2}": "在集群 {n2} 个 rank 中的 0 到 {n1} 上",
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
    "{c1} ✓": "{c1} ✓",
    "{c1} ✗": "{c1} ✗",
    // the first screen (first.js) and where the number of ranks changes (controls.js)
    "Press R to run {s1} on {n1} ranks; 1–0 picks a collective. Another number of ranks:":
      "按 R 在 {n1} 个 rank 上运行 {s1}；1–0 选择集合通信。换一个 rank 数：",
    "No run yet: {s1} on {n1} ranks, from these inputs.":
      "还没有运行：{n1} 个 rank 上的 {s1}，从这些输入开始。",
    "{n1} ranks connected:":
      "已连接 {n1} 个 rank：",
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
    "{s1} = {s2} sent by the root, in ⌈log2 P⌉ steps": "{s1} = {s2}：根分 ⌈log2 P⌉ 步发送的量",
    "{s1} = {s2} into the root, in ⌈log2 P⌉ steps": "{s1} = {s2}：分 ⌈log2 P⌉ 步流入根的量",
    "({s1}) · measured {s2}": "（{s1}）· 实测 {s2}",
    "({s1}) · measured when the run ends": "（{s1}）· 运行结束后实测",
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
    // the page's title, landmarks and dialogs (index.html)
    "Ringside: {w1} {w2} ({w3})": "Ringside：{w1} {w2}（{w3}）",
    // the run form and the strip over the stage (controls.js)
    "{w1} needs at least two ranks": "{w1} 至少需要两个 rank",
    "key {n1}: {w1}": "按键 {n1}：{w1}",
    "all {n1} ranks, or e.g. 0,2,3": "全部 {n1} 个 rank，或如 0,2,3",
    "{w1} needs an integer dtype": "{w1} 需要整数数据类型",
    "{n1} ranks": "{n1} 个 rank",
    "ranks {w1}": "rank {w1}",
    "root {n1}": "根 {n1}",
    "lecture data: {t1}": "讲课数据：{t1}",
    ["{\"pieces\": 4, \"steps\": [{\"phase\": \"reduce-scatter\", \"caption\": \"…\", \"transfers\": "
      + "[[0, 1, 3, 3, 1], …]}]}  (src, dst, chunk, into, reduce); at most {n1} steps"]:
      "{\"pieces\": 4, \"steps\": [{\"phase\": \"reduce-scatter\", \"caption\": \"…\", \"transfers\": "
        + "[[0, 1, 3, 3, 1], …]}]}  （发送方、接收方、块、目标块、是否规约）；最多 {n1} 步",
    "not JSON: {x1}": "不是 JSON",
    // the run on the stage, its panels and the player (runs.js, panels.js)
    "… and more: {n1} transfers in all": "… 还有更多：共 {n1} 次传输",
    "{r1} → {r2}: chunk {n1} {s1} copied into chunk {n2}": "{r1} → {r2}：块 {n1} {s1} 复制到块 {n2}",
    "{l1} → {r1}: chunk {n1} {s1}": "{l1} → {r1}：块 {n1} {s1}",
    "show step {n1}": "查看第 {n1} 步",
    "✗ off by {v1}": "✗ 相差 {v1}",
    "steps {n1}–{n2}": "第 {n1}–{n2} 步",
    // the stage's words, drawn in the page's language (cards.js, perturbation.js)
    "node {s1} · local {n1} · global {n2} of {n3}": "节点 {s1} · 本地 rank {n1} · 全局 rank {n2}/{n3}",
    "{w1} · local {n1} · global {n2}/{n3}": "{w1} · 本地 {n1} · 全局 {n2}/{n3}",
    "{r1} is not in this run's group": "{r1} 不在本次运行的通信组中",
    "{r1} · not in group": "{r1} · 不在组内",
    "{r1} · out": "{r1} · 组外",
    "{r1} so far: sent {s1}, received {s2}": "{r1} 至今：发送 {s1}，接收 {s2}",
    "{r1} chunk {n1} from {s1}": "{r1} 块 {n1} · 来源：{s1}",
    "{r1} chunk {n1} from {s1} (not part of the output)": "{r1} 块 {n1} · 来源：{s1}（不属于输出）",
    "min {s1}, max {s2}, sum {s3}; first {s4}": "最小 {s1}，最大 {s2}，和 {s3}；开头 {s4}",
    "straggler · +{s1} a step": "掉队者 · 每步 +{s1}",
    "slow link {n1}–{n2} · {s1}": "慢链路 {n1}–{n2} · {s1}",
    "everyone waits for it at step {n1}": "所有 rank 在第 {n1} 步等它",
    "done: step {n1}": "完成：第 {n1} 步",
    "waits for {n1}": "等待 rank {n1}",
    // the perturbations' panel and report (perturbation.js)
    "predicted extra: +{s1} (from the schedule)": "预测的额外时间：+{s1}（由调度算出）",
    "· measured time: {v1}": "· 实测时间：{v1}",
    "{r1} arrived last at {n1} of {n2} steps": "{r1} 在 {n2} 步中有 {n1} 步最后到达",
    "step {n1}: {r1} last (+{v1})": "第 {n1} 步：{r1} 最后到达 (+{v1})",
    "{n1} waited {v1} for {n2}": "rank {n1} 等了 rank {n2} {v1}",
    "… {n1} more steps": "… 还有 {n1} 步",
    "under one straggler: {l1}": "一个掉队者下：{l1}",
    "{w1}: {v1} (predicted +{v2})": "{w1}：{v1}（预测 +{v2}）",
    "{r1} never arrived at step {n1} (its first); {t1} waited for it: it was to {t2}":
      "{r1} 始终没有到达第 {n1} 步（它的第一步）；{t1} 一直在等它：它本应{t2}",
    "{r1} never arrived at step {n1} (step {n2} counting from 1); {t1} waited for it: it was to {t2}":
      "{r1} 始终没有到达第 {n1} 步（从 1 数是第 {n2} 步）；{t1} 一直在等它：它本应{t2}",
    "{r1} has not arrived at step {n1} (its first); {t1} wait for it: it is to {t2}":
      "{r1} 还没有到达第 {n1} 步（它的第一步）；{t1} 在等它：它应当{t2}",
    "{r1} has not arrived at step {n1} (step {n2} counting from 1); {t1} wait for it: it is to {t2}":
      "{r1} 还没有到达第 {n1} 步（从 1 数是第 {n2} 步）；{t1} 在等它：它应当{t2}",
    "send {t1}": "发送{t1}",
    "receive {t1}": "接收{t1}",
    "chunk {n1} to {r1}": "块 {n1} 给 {r1}",
    "chunk {n1} from {r1}": "来自 {r1} 的块 {n1}",
    "{t1} (its own report: {x1})": "{t1}（该 rank 自己的报告见英文页面）",
    "{t1} (first report: {x1})": "{t1}（最早的报告见英文页面）",
    // send/recv code's calls under the stage (calls.js)
    "Each rank's calls, {s1} in all: grey while in flight, red while the rank waits in the call":
      "每个 rank 的调用，共 {s1}：传输中为灰色，rank 在调用中等待时为红色",
    "waited {v1}": "等待 {v1}",
    "{w1} to {r1} ({w2}): posted {v1}, waited from {v2}, done {v3}":
      "{w1} 发往 {r1}（{w2}）：发起 {v1}，从 {v2} 起等待，完成 {v3}",
    "{w1} from {r1} ({w2}): posted {v1}, waited from {v2}, done {v3}":
      "{w1} 来自 {r1}（{w2}）：发起 {v1}，从 {v2} 起等待，完成 {v3}",
    "{r1}, the sender, waited: {l1}": "发送方 {r1} 的等待：{l1}",
    // the lecture's keys and the seed's formulas (lessons.js, seed-formulas.js)
    "group: {t1} ({s1}): the others greyed on the stage once R runs it":
      "通信组：{t1}（{s1}）：按 R 运行后，其余 rank 在画面上变灰",
    "The seed's all_reduce formulas at {s1}: {t1}": "讲义中的 all_reduce 公式，{s1}：{t1}",
    "N made {n1} elements (the run had {n2}): ring's N/P splits evenly":
      "N 取为 {n1} 个元素（该运行为 {n2} 个）：使 ring 的 N/P 能整除",
    // the compare chart and its table (compare.js)
    "{c1}: busiest rank": "{c1}：最繁忙的 rank",
    "{c1}: busiest link": "{c1}：最繁忙的链路",
    "{c1}: measured here": "{c1}：本集群实测",
    "= for N = {n1} B, P = {n2}": "= N = {n1} B、P = {n2} 时",
    "parameter server (S={n1})": "参数服务器（S={n1}）",
    // the sweep and the prediction panels (sweep.js, predict.js)
    "dotted: one α, β, γ for every schedule, fitted to {n1} runs: RMS error {v1}":
      "虚线：所有调度共用一组 α、β、γ，拟合了 {n1} 次运行：RMS 误差 {v1}",
    "dotted: one α, β, γ for every schedule, fitted to {n1} runs: RMS error {v1}, {v2} on sizes held out":
      "虚线：所有调度共用一组 α、β、γ，拟合了 {n1} 次运行：RMS 误差 {v1}，留出的大小上 {v2}",
    "Model: α {s1} µs a step, β {s2} GB/s, γ {s3} GB/s reduced ({c1}).":
      "模型：每步 α {s1} µs，β {s2} GB/s，规约 γ {s3} GB/s（{c1}）。",
    ["It misses these points by {s1} (median): one latency per step for every schedule cannot hold "
      + "when the ranks outnumber the cores, as a step whose every rank waits on another pays the "
      + "scheduler each time."]:
      "这些点偏离 {s1}（中位数）：rank 多于核心时，所有调度每步一个延迟的假设不成立，因为每个 rank 都在等另一个 rank 的那一步，每次都要付出调度器的开销。",
    "{w1}: time and bus bandwidth against size": "{w1}：时间和总线带宽随大小的变化",
    "{w1} model": "{w1} 模型",
    "{w1}: queueing runs…": "{w1}：正在排队运行…",
    "{w1}: {n1} of {n2} runs": "{w1}：{n2} 次运行中的 {n1} 次",
    "{w1}: {n1} runs, charted": "{w1}：{n1} 次运行，已绘图",
    ["α {s1} a step, β {s2} GB/s, γ {s3} GB/s reduced — {c1}. Every schedule cut into the chunks it "
      + "runs fastest with (as chunks: auto)."]:
      "每步 α {s1}，β {s2} GB/s，规约 γ {s3} GB/s — {c1}。每个调度按其最快的块数切分（同 chunks: auto）。",
    "{w1} beats {w2} below {v1} at P={n1}": "P={n1} 时，小于 {v1} 时 {w1} 快于 {w2}",
    "one algorithm is fastest from {s1} to {s2} at P={n1}": "P={n1} 时，从 {s1} 到 {s2} 都是同一个算法最快",
    "time against size at P={n1}": "P={n1} 时时间随大小的变化",
    "time against P at {s1} per rank": "每个 rank {s1} 时时间随 P 的变化",
    // a preset's prediction, a sentence each (predict.js's describe), the server's words in it
    "preset {w1}, {n1} ranks a node, NCCL {w2}.":
      "预设 {w1}：每个节点 {n1} 个 rank，NCCL {w2}。",
    "preset {w1}, 1 rank a node, NCCL {w2}.":
      "预设 {w1}：每个节点 1 个 rank，NCCL {w2}。",
    "Inside a node, {c1}: α {s1} a step, β {s2} GB/s.":
      "节点内：{c1}，每步 α {s1}，β {s2} GB/s。",
    "Between nodes, {c1}: α {s1} a step, β {s2} GB/s.":
      "节点间：{c1}，每步 α {s1}，β {s2} GB/s。",
    "γ {s1} GB/s reduced.":
      "规约 γ {s1} GB/s。",
    "Sources: {c1}.":
      "来源：{c1}。",
    "Native: {c1}.":
      "native：{c1}。",
    ["NCCL {w1} src/graph/tuning.cc: baseLat ring, hwLat NVLink ring (inside a node) and network "
      + "ring (between nodes) per protocol; A100 datasheet: NVLink 600 GB/s (300 GB/s each way), "
      + "HBM2 1,555 GB/s (3 bytes moved per byte reduced); DGX A100 datasheet: a 200 Gb/s HDR NIC "
      + "per GPU"]:
      "NCCL {w1} src/graph/tuning.cc：各协议下 ring 的 baseLat，节点内 NVLink ring 与节点间网络 ring 的 hwLat；A100 数据手册：NVLink 600 GB/s（每个方向 300 GB/s），HBM2 1,555 GB/s（每规约 1 字节搬运 3 字节）；DGX A100 数据手册：每个 GPU 一块 200 Gb/s HDR 网卡",
    ["NCCL {w1} src/graph/tuning.cc: baseLat ring, hwLat network ring (between hosts) and PCI "
      + "ring (inside one) per protocol; IEEE 802.3ba 100 Gb/s line rate (12.5 GB/s); PCIe 4.0 x16 "
      + "(31.5 GB/s); A100 HBM2 1,555 GB/s for the reduction"]:
      "NCCL {w1} src/graph/tuning.cc：各协议下 ring 的 baseLat，主机间网络 ring 与主机内 PCI ring 的 hwLat；IEEE 802.3ba 100 Gb/s 线速（12.5 GB/s）；PCIe 4.0 x16（31.5 GB/s）；规约用 A100 HBM2 1,555 GB/s",
    ["NCCL {w1}'s choice (src/enqueue.cc: the algorithm and protocol of least predicted time) of "
      + "{l1}, with this preset"]:
      "此预设下 NCCL {w1} 在 {l1} 中的选择（src/enqueue.cc：预测时间最短的算法与协议）",
    "native: measured line ({n1} runs)": "native：实测拟合线（{n1} 次运行）",
    "fitted to this cluster's runs ({n1} runs)": "拟合本集群的运行（{n1} 次运行）",
    // the cluster panel (cluster.js)
    "world size {n1}": "进程总数 {n1}",
    "started by {l1}": "启动方式：{l1}",
    "node {w1} · torch {w2}": "节点 {w1} · torch {w2}",
    "local {n1}/{n2}": "本地 {n1}/{n2}",
    "pid {n1}": "PID {n1}",
    // B and Z: the nodes and how ranks start (lecture/hosts.js, launchers.js)
    "node {w1}": "节点 {w1}",
    "global rank {n1}": "全局 rank {n1}",
    "local rank {n1}": "本地 rank {n1}",
    "world size {n1} = {n2} nodes × {n3} ranks a node": "进程总数 {n1} = {n2} 个节点 × 每个节点 {n3} 个 rank",
    "this cluster: started by {s1}": "本集群：由 {s1} 启动",
    // a barrier's lanes (stage/arrivals.js), the strip's stagger
    "arrived {v1}": "到达 {v1}",
    "{r1} arrived at {v1} and left at {v2}, once the last, {r2}, had arrived": "{r1} 于 {v1} 到达，最后一个 {r2} 到达后于 {v2} 离开",
    "ranks arrive {v1} apart: each waits for the last": "各 rank 相隔 {v1} 到达：每个 rank 都等最后一个到达",
    "ranks arrive {v1} apart": "各 rank 相隔 {v1} 到达",
    // the training: its form, status and charts (training/)
    "compare all methods: {n1} of {n2} submitted": "对比所有方法：已提交 {n2} 个中的 {n1} 个",
    "compare all methods: {n1} of {n2} submitted, each when the one before has ended":
      "对比所有方法：已提交 {n2} 个中的 {n1} 个，每个在前一个结束后提交",
    "hidden {n1} ({n2} parameters)": "隐藏层 {n1}（{n2} 个参数）",
    "{t1}: step {n1} of {n2}": "{t1}：第 {n1} 步，共 {n2} 步",
    "loss {w1}": "损失 {w1}",
    "held-out accuracy {w1}": "留出集准确率 {w1}",
    "{w1}, step {n1}: its gradient sync ({s1}) is on the stage; step through it with the player":
      "{w1}，第 {n1} 步：其梯度同步（{s1}）已在画面上；用播放器逐步查看",
    "server {n1}: no loss": "服务器 {n1}：无损失",
    "server {n1}": "服务器 {n1}",
    "{t1} sent": "{t1} 发送",
    "{t1} received": "{t1} 接收",
    "busiest link ({w1})": "最繁忙的链路（{w1}）",
    "{n1} method finished": "{n1} 种方法已完成",
    "{n1} methods finished": "{n1} 种方法已完成",
    "{n1} steps: {t1}": "{n1} 步：{t1}",
    "{w1} S={n1}": "{w1} S={n1}",
    "training method: {s1}: N trains with it, V compares every method": "训练方法：{s1}：N 用它训练，V 对比所有方法",
    "{w1}, step {n1}: its gradient sync is the backend's own all_reduce ({w2}), one call with no steps to show: a stepwise method (W) shows one step by step":
      "{w1}，第 {n1} 步：其梯度同步是后端自身的 all_reduce（{w2}），只是一次调用，没有可展示的步骤：逐步的方法（W）会一步一步展示",
    "the losses agree to within {v1}: each method sums the same gradients in its own order":
      "各方法的损失相差不超过 {v1}：每种方法按各自的顺序对相同的梯度求和",
    "{w1}: the backend's own call does not report its bytes": "{w1}：后端自身的调用，不报告字节数",
    // the watched jobs (watched/)
    "{s1} collectives": "{s1} 次集合通信",
    "({s1} more unseen: the recorder overwrote them unread)": "（另有 {s1} 次未看到：记录器在读取前覆盖了它们）",
    "pid {n1} · {s1}": "PID {n1} · {s1}",
    "last report at {v1}": "最后报告于 {v1}",
    "last report at {v1} · {n1} missed, {n2} dropped": "最后报告于 {v1} · 漏掉 {n1} 次，丢弃 {n2} 次",
    "exited {n1}": "已退出 {n1}",
    "{n1} nodes": "{n1} 个节点",
    "{w1} #{n1} (group {w2})": "{w1} #{n1}（通信组 {w2}）",
    "last rank {n1}, lag {v1}": "最后的 rank {n1}，延迟 {v1}",
    "bucket {s1}": "桶 {s1}",
    "· for {v1}": "· 持续 {v1}",
    "node {w1} · {t1}": "节点 {w1} · {t1}",
    "nodes {w1} – {w2} · {t1}": "节点 {w1} – {w2} · {t1}",
    "{n1} more nodes": "另有 {n1} 个节点",
    "ranks {l1}": "rank {l1}",
    "{t1} silent: {t2} goes on": "{t1} 无响应：{t2} 继续运行",
    "{t1} silent: {t2} go on": "{t1} 无响应：{t2} 继续运行",
    "mismatch on #{n1} of group {w1}: {t1}": "通信组 {w1} 的 #{n1} 不一致：{t1}",
    "{t1} late: {t2} waits in {w1} #{n1} (group {w2}, {s1} × {w3})":
      "{t1} 迟到：{t2} 在 {w1} #{n1} 中等待（通信组 {w2}，{s1} × {w3}）",
    "{t1} late: {t2} wait in {w1} #{n1} (group {w2}, {s1} × {w3})":
      "{t1} 迟到：{t2} 在 {w1} #{n1} 中等待（通信组 {w2}，{s1} × {w3}）",
    "{t1} deadlocked": "{t1} 死锁",
    "{t1} late: {t2} waits in {w1} ({s1} × {w2})": "{t1} 迟到：{t2} 在 {w1} 中等待（{s1} × {w2}）",
    "{t1} late: {t2} wait in {w1} ({s1} × {w2})": "{t1} 迟到：{t2} 在 {w1} 中等待（{s1} × {w2}）",
    "Hang: {t1}": "挂起：{t1}",
    // opening a trace in Perfetto (perfetto.js)
    "Opening {s1} …": "正在打开 {s1} …",
    "Sent the trace to Perfetto ({n1} bytes): see its tab.": "已把跟踪文件发给 Perfetto（{n1} 字节）：请看它的标签页。",
    "Could not reach {s1}: no answer in {n1} s. Download the trace and open it there later.":
      "无法连接 {s1}：{n1} 秒内无应答。请下载跟踪文件，稍后在那里打开。",
    ["No answer from {s1} yet: it may be unreachable from here (offline?). Still trying; the download "
      + "link works without it."]:
      "{s1} 还没有应答：这里可能连不上它（离线？）。仍在尝试；下载链接不依赖它。",
    // the lecture's overlays (hall.js, presenter.js)
    // a server's refusals that the page can meet (validation.py, dispatcher.py, polls, rules.py)
    "ranks {s1} of the world are not connected; every rank takes part in every {t1}":
      "进程组中的 rank {s1} 未连接；每次{t1}都需要所有 rank 参与",
    "{w1} holds the cluster; start a {t1} when it has ended": "{w1} 正占用集群；等它结束后再开始{t1}",
    "{n1} jobs are waiting already; submit again when some have run": "已有 {n1} 个任务在等待；等一些运行完后再提交",
    "rank {n1} is not in the group [{s1}]: give one of its ranks": "rank {n1} 不在通信组 [{s1}] 中：请给出组内的一个 rank",
    ["rank {n1} is not in the group [{s1}] ({s2} has none, but its ranks count from one): give one of "
      + "its ranks"]:
      "rank {n1} 不在通信组 [{s1}] 中（{s2} 没有根，但组内 rank 要从其中一个数起）：请给出组内的一个 rank",
    "rank {n1} is not in the group [{s1}]": "rank {n1} 不在通信组 [{s1}] 中",
    "rank {n1} does not exist (ranks are 0..{n2})": "rank {n1} 不存在（rank 为 0..{n2}）",
    "{w1} needs at least {n1} ranks": "{w1} 至少需要 {n1} 个 rank",
    "must be at least {n1}, not {w1}": "至少为 {n1}，不能是 {w1}",
    "must be between {w1} and {w2}, not {w3}": "必须在 {w1} 到 {w2} 之间，不能是 {w3}",
    "must be between {w1} and {w2} seconds, not {w3}": "必须在 {w1} 到 {w2} 秒之间，不能是 {w3}",
    "must be {w1} to {w2}, not {w3}": "必须为 {w1} 到 {w2}，不能是 {w3}",
    "must be {w1} (one sample per worker) to {w2}, not {w3}": "必须为 {w1}（每个工作节点一个样本）到 {w2}，不能是 {w3}",
    "the learning rate must be above 0 and at most 10, not {w1}": "学习率必须大于 0 且不超过 10，不能是 {w1}",
    "{w1} needs an integer dtype, not {w2}": "{w1} 需要整数数据类型，不能是 {w2}",
    "{w1} needs a floating dtype, not {w2}": "{w1} 需要浮点数据类型，不能是 {w2}",
    "{w1} is not available on {w2}": "{w1} 在 {w2} 上不可用",
    ["servers add the workers' values into their own (a gradient into the weights); {s1} would divide "
      + "their own too"]:
      "服务器把工作节点的值加进自己的值（梯度加进权重）；{s1} 会把它们自己的值也一起除掉",
    "'full' ships every value and is limited to {n1} elements per rank (this run has {n2}); use 'summary'":
      "'full' 会发送每一个值，每个 rank 最多 {n1} 个元素（本次运行有 {n2} 个）；请用 'summary'",
    "{n1} elements do not split into {n2} equal shards, one per server: use a multiple of {n3}":
      "{n1} 个元素无法分成 {n2} 个相等的分片（每个服务器一个）：请用 {n3} 的倍数",
    "{w1} cuts each block into {n1} chunks, more than count={n2} elements":
      "{w1} 把每个块切成 {n1} 份，多于 count={n2} 个元素",
    "{w1} cuts each rank's buffer into {n1} chunks over {n2} steps; a run has at most {n3} chunks and {n4} steps":
      "{w1} 在 {n2} 步中把每个 rank 的缓冲区切成 {n1} 块；一次运行最多 {n3} 块、{n4} 步",
    "{w1} moves chunks into chunks of another piece of a block, so each block must split evenly: count must be a multiple of {n1}, not {n2}":
      "{w1} 会把一份移进块中另一份的位置，所以每个块必须均分：count 必须是 {n1} 的倍数，而不是 {n2}",
    "{n1} servers in a group of {n2} ranks leave no workers: at most {n3}":
      "{n2} 个 rank 的组里有 {n1} 个服务器就没有工作节点了：最多 {n3} 个",
    "{w1} has no peer, so it takes none (leave peer out)": "{w1} 没有对端，因此不接受它（请去掉 peer）",
    "{w1} does not reduce, so it takes no op (leave op out), not {w2}": "{w1} 不做规约，因此不接受运算（请去掉 op），不能是 {w2}",
    "no run {w1}": "没有运行 {w1}",
    "no training {w1}": "没有训练 {w1}",
    "no job {w1}": "没有任务 {w1}",
    "no poll {w1}": "没有投票 {w1}",
    "{w1} has no buffer to size N by": "{w1} 没有可用来确定 N 的缓冲区",
    "{n1} elements do not split into {n2} equal chunks, one a rank": "{n1} 个元素无法分成 {n2} 个相等的块（每个 rank 一个）",
    "rank {n1} was lost during the {t1}": "{t1}期间 rank {n1} 失联",
    "the server stopped before this {t1} finished": "此{t1}完成前服务器已停止",
    "the server failed while running this {t1} (its log says why)": "运行此{t1}时服务器出错（原因见其日志）",
    "this poll has its {n1} votes": "此投票已收满 {n1} 票",
    "run {s1} is {t1}: ask about a run that is done": "运行 {s1} 处于{t1}状态：请就已完成的运行提问",
    "ranks {s1} move the same bytes: there is no one bottleneck": "rank {s1} 传输的字节数相同：没有唯一的瓶颈",
    "run {s1} is held for a poll: its trace comes with the reveal": "运行 {s1} 正用于投票：其跟踪文件在揭晓时提供",
    "rank {n1} is outside a world of {n2}": "rank {n1} 超出了进程总数 {n2}",
    "{w1} needs at least {n1} elements": "{w1} 至少需要 {n1} 个元素",
    // what auto chose, and why (the server's model: predict.py, costs.py)
    "{t1} auto → {w1}": "{t1} auto → {w1}",
    "{t1} auto → {w1} · {t2} auto → {w2}": "{t1} auto → {w1} · {t2} auto → {w2}",
    ["native: no stepwise runs fitted yet, so the model cannot rank the schedules (with default guess (50 us a "
      + "step, 1 GB/s, 4 GB/s reduced): no runs fitted yet: {l1})"]:
      "native：尚未拟合任何逐步运行，模型无法给调度排序（按默认估计（每步 50 µs，1 GB/s，规约 4 GB/s）：{l1}）",
    "{w1} has no schedule that runs here: native": "{w1} 在这里没有可运行的调度：native",
    "native: no stepwise runs fitted yet, so the model cannot rank the schedules (with {c1}: {l1})":
      "native：尚未拟合任何逐步运行，模型无法给调度排序（按 {c1}：{l1}）",
    ["native: no native {s1} runs at {n1} ranks measured at two sizes yet, so it cannot be compared; "
      + "predicted: {l1}"]:
      "native：尚未在 {n1} 个 rank 上以两种大小测量 native {s1}，无法比较；预测：{l1}",
    "{w1}: predicted fastest, under {w2} of native's time ({t1}; {l1})":
      "{w1}：预测最快，低于 native 时间的 {w2}（{t1}；{l1}）",
    "native: no schedule is predicted under {s1} of native's time ({t1}; {l1})":
      "native：没有调度被预测低于 native 时间的 {s1}（{t1}；{l1}）",
    "{w1}: measured fastest at {v1} ({l1}), where the model ranked {w2} first":
      "{w1}：在 {v1} 实测最快（{l1}），而模型排第一的是 {w2}",
    "{n1} chunks: predicted fastest of {l1} (with {c1})": "{n1} 块：在 {l1} 中预测最快（按 {c1}）",
    "the model errs by {s1} on sizes held out": "模型在留出的大小上误差 {s1}",
    "the model errs by {s1} RMS over its runs": "模型在其运行上的 RMS 误差为 {s1}",
    "{w1} ×{n1} chunks {v1}": "{w1} ×{n1} 块 {v1}",
    "{w1} unknown": "{w1} 未知",
    // a failure's lead-in: the server's reason follows, said by its field (dom.js: reason)
    "Could not open run {w1}:": "无法打开运行 {w1}：",
    "Could not cancel {w1}:": "无法取消 {w1}：",
    "Could not open training {w1}:": "无法打开训练 {w1}：",
    "step {n1}:": "第 {n1} 步：",
    "Could not open job {w1}:": "无法打开任务 {w1}：",
    "Could not open the presenter's run {w1}:": "无法打开主讲人的运行 {w1}：",
    "Ask the room, then run {s1} · {s2} held": "先向全场提问，再隐藏结果运行 {s1} · {s2}",
    "voting closes after {n1} s": "{n1} 秒后结束投票",
    "or type element {n1}": "或输入第 {n1} 个元素的值",
    "You typed {s1}": "你输入的是 {s1}",
    "The number: {s1}": "正确的数：{s1}",
    "{n1} typed it": "{n1} 人输入正确",
    "Every page has seen {s1}: it answers this already": "所有页面都已看过 {s1}：它已给出这个问题的答案",
    "{n1} pages connected": "已连接 {n1} 个页面",
    "closes in {n1} s": "{n1} 秒后结束",
    "Not asked: {c1}": "未能提问：{c1}",
    // practice (practice.js, practice-chart.js, server/practice/)
    "Practice on run {w1}": "练习运行 {w1}",
    "{n1} of {n2} right": "{n2} 个中答对 {n1} 个",
    "Step {n1}: right ✓, it holds {v1}": "第 {n1} 步：答对了 ✓，值是 {v1}",
    "Step {n1}: you said {v1}, it holds {v2}": "第 {n1} 步：你答 {v1}，实际是 {v2}",
    "Step {n1} writes no recorded cell": "第 {n1} 步没有写入有记录的格子",
    "After step {n1}, what is the first value in chunk {n2} of {r1}?": "第 {n1} 步之后，{r1} 的块 {n2} 的第一个值是多少？",
    "step {n1}": "第 {n1} 步",
    "run {w1} is held for a question: it is practised after the reveal": "运行 {w1} 因提问而暂不公开：揭晓答案后才能练习",
    "run {w1} is {t1}: practise a run that is done": "运行 {w1} 的状态是{t1}：请练习已完成的运行",
    "run {w1} has no step whose cells were recorded: there is nothing to predict": "运行 {w1} 没有记录了值的步骤：没有可预测的内容",
    "this page has answered step {n1} of run {w1} already": "此页面已回答过运行 {w1} 的第 {n1} 步",
    "run {w1} has its {n1} answers": "运行 {w1} 已收满 {n1} 个回答",
    "step {n1} of run {w1} asks nothing: no cell it writes was recorded": "运行 {w1} 的第 {n1} 步没有问题：它写入的格子都没有记录",
    "run {w1} has {n1} steps, numbered from 0": "运行 {w1} 有 {n1} 步，从 0 开始编号",
  },
  words: {
    // practice (practice.js, practice-chart.js)
    Practice: "练习", "step this run alone, predicting a cell before each step": "独自逐步查看这次运行，每一步前预测一个格子",
    "Practice: predict each step": "练习：每一步都预测", "how the room practised, per step": "全场每一步的练习结果",
    "how the phones practising the run did, per step": "练习这次运行的手机每一步的结果",
    "Counted for the presenter": "已计入主讲人的统计", "Counted once already": "已经计入过一次",
    "Not counted: not connected to the lecture": "未计入：没有连接到讲课", "Not practised:": "无法练习：",
    "Stop practising": "停止练习", "The end of the run": "运行结束了", Again: "再来一次",
    "Step on": "下一步", "your prediction": "你的预测", Check: "核对", "No run on the stage": "舞台上没有运行",
    "The phones' predictions, step by step · H closes": "手机逐步的预测 · 按 H 关闭",
    // phases
    "local copy": "本地复制", exchange: "交换", fold: "折叠", unfold: "展开", signal: "信号", pull: "拉取（pull）",
      push: "推送（push）", send: "发送",
    sent: "发送", received: "接收", "ring against tree all_reduce under one straggler":
      "一个掉队者下 ring 与 tree 的 all_reduce 对比",
    // run states, roles, the connection
    queued: "排队中", running: "运行中", done: "完成", failed: "失败", cancelled: "已取消", dumped: "转储",
    presenter: "主讲人", audience: "听众", "audience · following the presenter": "听众 · 跟随主讲人",
    "connecting…": "连接中…", live: "实时", "reconnecting…": "重新连接中…",
    // the header, panels and player
    Jobs: "任务", "light / dark": "浅色 / 深色", Lecture: "讲课", "keyboard shortcuts": "键盘快捷键",
    "watched jobs: your own torchrun job's collectives (J)": "监视的任务：你自己的 torchrun 任务的集合通信 (J)",
    "lecture mode (F: fullscreen, ?: keys)": "讲课模式（F：全屏，?：按键）",
    "Run a collective": "运行一个集合通信", Run: "运行", "Train a model across the ranks": "在各 rank 上训练模型",
    Train: "训练", History: "历史", "No run yet": "还没有运行", "stop this run at its next iteration": "在下一次迭代时停止本次运行",
    Cancel: "取消", "show what the presenter shows again": "重新显示主讲人的画面", "Follow presenter": "跟随主讲人",
    "ranks and their buffers": "各 rank 及其缓冲区", "to the inputs": "回到输入", "step back (←)": "后退一步 (←)",
    "play / pause (Space)": "播放 / 暂停 (Space)", "step forward (→)": "前进一步 (→)", step: "步", inputs: "输入",
    speed: "速度", "follow live": "实时跟随", phases: "阶段", "This step": "本步", "Before / after": "前 / 后",
    Traffic: "流量", "open ui.perfetto.dev and hand it this run's trace": "打开 ui.perfetto.dev 并交给它本次运行的跟踪文件",
    "Open in Perfetto": "在 Perfetto 中打开", "download trace": "下载跟踪文件", "Export HTML": "导出 HTML",
    "Copy link": "复制链接", "Link copied": "链接已复制", "Poll: predict, then reveal": "投票：先预测，再揭晓",
    Training: "训练", "stop this training after its current step": "当前步完成后停止训练",
    "Open its gradient sync on the stage": "在画面上打开这一步的梯度同步", "Methods compared": "方法对比",
    "Watched jobs": "监视的任务", "back to the stage (J)": "回到画面 (J)", Close: "关闭",
    "Collectives per rank": "每个 rank 的集合通信", "Latest: last rank and lag": "最新：最后的 rank 与延迟",
    "Totals per op and group": "按运算和组统计", "p2p links": "p2p 链路", Sweep: "扫描", "Predict at scale": "按规模预测",
    Cluster: "集群", cpu: "CPU", memory: "内存", gpu: "GPU", "the audience's link: scan it": "听众链接：扫码打开",
    // the keys dialog
    Keys: "按键", "play / pause": "播放 / 暂停", "step back / forward": "后退 / 前进一步", "faster / slower": "加快 / 减慢",
    "run what is picked (Enter after a number: that step)": "运行所选（数字后按 Enter：跳到该步）",
    "pick a collective (] next, [ previous)": "选择集合通信（] 下一个，[ 上一个）", "next algorithm": "下一个算法",
    "next reduction op": "下一个规约运算", "lecture data on / off (a digit a block)": "讲课数据 开 / 关（每块一个数字）",
    "compare: bytes against P": "对比：字节数随 P 变化", "the training's charts": "训练图表", "watched jobs": "监视的任务",
    "the audience's link as a QR code": "听众链接的二维码", "to the inputs / the result": "回到输入 / 跳到结果",
      "to step 3": "跳到第 3 步",
    "reveal the answer, play on": "揭晓答案并继续播放", "close the poll": "关闭投票", fullscreen: "全屏",
    "close the poll, this help, J, C, T, K": "关闭投票、本帮助、J、C、T、K",
    "the lesson's next stage: its run, or its question first": "课程的下一阶段：运行它，或先提问",
    "the lesson's stage": "课程的阶段",
    "group: all, evens, odds, first half, one per node": "分组：全部、偶数、奇数、前一半、每个节点一个",
    "the next root": "下一个根", "half / twice the count": "元素数减半 / 加倍",
    "the parameter server's S (servers)": "参数服务器的 S（服务器数）",
    "inputs: a digit, its rank, [1, 10, 100, 1000]·rank, r2c3":
      "输入：一个数字、自己的 rank、[1, 10, 100, 1000]·rank、r2c3",
    "the seed's formulas; again: total, busiest link": "讲义里的公式；再按：总量、最忙的链路",
    train: "训练", "a training step's gradient sync": "训练步的梯度同步", "export as HTML": "导出为 HTML",
    "lecture mode": "讲课模式", "this help": "本帮助", language: "语言",
    // polls
    "no timer": "不限时",
    "a number may be typed": "可以输入数字",
    "choices only": "只能选择",
    "1–4 asks · ↑ ↓ rank · ← → step · T timer · N numbers · Esc cancels": "1–4 提问 · ↑ ↓ rank · ← → 步 · T 限时 · N 数字 · Esc 取消",
    "Running it held: the room sees the question when it has run": "正在隐藏结果运行：运行结束后全场才看到问题",
    "or type the bytes": "或输入字节数",
    "or type the rank": "或输入 rank 编号",
    "Send": "发送",
    "Not connected to the lecture: wait a moment": "未连接到讲课：请稍候",
    "held": "已隐藏",
    "the number": "数字",
    "Enter reveals · B closes voting · W shows the tally · Esc closes": "Enter 揭晓 · B 结束投票 · W 显示统计 · Esc 关闭",
    "Enter reveals · B closes voting · W hides the tally · Esc closes": "Enter 揭晓 · B 结束投票 · W 隐藏统计 · Esc 关闭",
    "ask the room, then run the pick held (1–4 a question; ↑ ↓ ← → rank, step; T, N)": "先向全场提问，再隐藏结果运行所选（1–4 选问题；↑ ↓ ← → rank、步；T、N）",
    "close voting; the tally on the projector": "结束投票；在投影上显示统计",
    "How many bytes cross the busiest link?": "最繁忙的链路上传输多少字节？",
    "Which rank moves the most bytes?": "哪个 rank 传输的字节最多？",
    "Which algorithm finishes first at this size and P?": "在这个大小和 P 下，哪个算法先完成？",
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
    Straggler: "掉队者",
    "delay (s)": "延迟 (s)",
    "Slow link": "慢链路",
    "and rank": "和 rank",
    Hang: "挂起",
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
      "扫描各种大小（在“运行”中），为每个算法画出时间和 busbw 随大小的变化，并叠加基于测量的 α-β 模型。扫描的运行不会出现在画面和听众页面上。",
    collective: "集合通信",
    "size for P curve": "P 曲线的大小",
    parameters: "参数量",
    Predict: "预测",
    // the page's title, landmarks and dialogs (index.html)
    "Ringside — collective communication, step by step": "Ringside — 一步一步看集合通信",
    "bytes against P: master-worker, ring and tree side by side": "字节数随 P 的变化：master_worker、ring 和 tree 并排",
    "the parameter server's formula and bytes beside the all_reduce algorithms'":
      "参数服务器的公式和字节数，与 all_reduce 各算法并列",
    "a lane per rank or node, a mark per collective: ← → move between them": "每个 rank 或节点一条泳道，每次集合通信一个标记：用 ← → 在其间移动",
    "jobs: ↑ ↓ to move, Enter to open": "任务：↑ ↓ 移动，Enter 打开",
    "the perturbation demo": "扰动演示",
    "Demo": "演示",
    "the formulas": "公式",
    "offline replay": "离线回放",
    "lecture mode (L)": "讲课模式 (L)",
    "← → step · Home End inputs / result · Space play · L lecture mode · F fullscreen":
      "← → 单步 · Home End 输入 / 结果 · Space 播放 · L 讲课模式 · F 全屏",
    // the run form and the strip over the stage (controls.js)
    "algorithm": "算法",
    "count": "元素数",
    "dtype": "数据类型",
    "op": "运算",
    "root": "根",
    "peer": "对端",
    "servers": "服务器数",
    "group": "通信组",
    "pattern": "输入模式",
    "capture": "采集方式",
    "chunks": "块数",
    "starts another number; the group field runs on some of them.": "可启动另一个 rank 数；通信组一栏只在其中一部分上运行。",
    "preview": "预览",
    "schedule": "调度",
    "index": "索引",
    "digits": "数字",
    "powers": "幂",
    "origin": "来源",
    "full": "完整",
    "summary": "摘要",
    "none": "无",
    "run every algorithm of this collective at growing sizes, then chart time and busbw":
      "以递增的大小运行此集合通信的每个算法，再画出时间和 busbw",
    "No ranks are connected yet.": "还没有 rank 连接。",
    "No ranks are connected.": "没有 rank 连接。",
    "servers add into their weights: AVG would divide them too": "服务器把收到的值加进权重：AVG 会把权重也一起除掉",
    "AVG needs a floating dtype": "AVG 需要浮点数据类型",
    "each rank waits for the last": "每个 rank 都等最后一个到达",
    "a digit a block": "每块一个数字",
    "each value its rank": "每个值为自己的 rank",
    "[1, 10, 100, 1000]·rank": "[1, 10, 100, 1000]·rank",
    "r2c3: rank 2's chunk 3": "r2c3：rank 2 的块 3",
    "load a schedule from a JSON file": "从 JSON 文件载入调度",
    // the run on the stage, its panels and the player (runs.js, panels.js)
    "interrupted": "已中断",
    "First departure:": "最早的偏离：",
    "? until the poll's answer is revealed": "? 投票答案揭晓之前",
    // the stage's words, drawn in the page's language (cards.js, perturbation.js)
    "values smaller than reads from the back: fewer ranks or a larger screen": "数值太小，后排看不清：减少 rank 数或换更大的屏幕",
    "server": "服务器",
    "not output": "非输出",
    "nobody": "无",
    "input": "输入",
    "output": "输出",
    "weights w": "权重 w",
    "done: no step": "完成：无",
    // the perturbations' panel and report (perturbation.js)
    "bytes/s": "字节/s",
    // the lecture's keys and the seed's formulas (lessons.js, seed-formulas.js)
    "all": "全部",
    "evens": "偶数",
    "odds": "奇数",
    "first half": "前一半",
    "one per node": "每个节点一个",
    "Y opens a training's step: train one first (N)": "Y 打开训练中的一步：请先训练 (N)",
    "what each formula counts": "各公式计算的量",
    "every rank's sends, in total": "所有 rank 发送量之和",
    "the busiest link": "最繁忙的链路",
    "formula": "公式",
    "counts": "计算的量",
    "with this N and P": "代入此 N 和 P",
    "measured here": "本集群实测",
    "simulated": "模拟",
    "in units of N": "以 N 为单位",
    "running it…": "运行中…",
    "not run at this N and P yet": "尚未以此 N 和 P 运行",
    "Run something first: the formulas take its N and P.": "请先运行一次：公式取其 N 和 P。",
    "M: the next count · measured here by runs of this N and P": "M：下一种计量 · 本集群以此 N 和 P 的运行实测",
    "sent per rank": "每个 rank 发送的量",
    "along the tree's depth": "沿树的深度传输的量",
    // the compare chart and its table (compare.js)
    "·N through the busiest rank": "·N，经过最繁忙 rank 的量",
    "·N on the busiest link": "·N，最繁忙链路上的量",
    "measured here (run": "本集群实测（运行",
    "no closed form here": "此处没有闭式公式",
    "not run at this N and P": "未以此 N 和 P 运行",
    "run it": "运行它",
    "bytes against P, in units of N (one rank's buffer): lines simulated, diamonds measured here":
      "字节数随 P 的变化，以 N（一个 rank 的缓冲区）为单位：线为模拟，菱形为本集群实测",
    "bytes against P, in units of N (one rank's buffer)": "字节数随 P 的变化，以 N（一个 rank 的缓冲区）为单位",
    "lines simulated, diamonds measured here": "线为模拟，菱形为本集群实测",
    "P (ranks)": "P（rank 数）",
    "busiest rank (× N)": "最繁忙的 rank（× N）",
    "busiest link (× N)": "最繁忙的链路（× N）",
    // the sweep and the prediction panels (sweep.js, predict.js)
    "dotted: the model, with default parameters (no runs fitted yet)": "虚线：默认参数的模型（尚未拟合任何运行）",
    ["The model's pick is drawn with the time it predicted when it chose; native with the line fitted "
      + "to its runs."]:
      "模型的选择按其选择时预测的时间画出；native 按拟合其运行的直线画出。",
    "bytes per rank": "每个 rank 的字节数",
    "time (µs)": "时间（µs）",
    "busbw (GB/s)": "busbw（GB/s）",
    "sweep: under way, in the Sweep panel below (its runs stay off the stage)": "扫描：正在进行，见下方扫描面板（其运行不上画面）",
    "this cluster's fit": "本集群的拟合",
    "ranks per node": "每个节点的 rank 数",
    "predicting…": "预测中…",
    "ranks (P)": "rank 数（P）",
    "native: NCCL's choice": "native：NCCL 的选择",
    "NVLink 3, 300 GB/s each way":
      "NVLink 3，每个方向 300 GB/s",
    "HDR InfiniBand, 200 Gb/s per GPU":
      "HDR InfiniBand，每个 GPU 200 Gb/s",
    "PCIe 4.0 x16, 31.5 GB/s each way":
      "PCIe 4.0 x16，每个方向 31.5 GB/s",
    "100 Gb/s Ethernet or EDR InfiniBand":
      "100 Gb/s 以太网或 EDR InfiniBand",
    ["Every schedule cut into the chunks it runs fastest with (as chunks: auto), with the "
      + "protocol NCCL would pick."]:
      "每个调度按其最快的块数切分（同 chunks: auto），并用 NCCL 会选的协议。",
    "default": "默认值",
    // the cluster panel (cluster.js)
    "ringside up": "ringside up",
    "environment variables": "环境变量",
    "global rank": "全局 rank",
    "local rank / ranks on this node": "本地 rank / 本节点的 rank 数",
    "idle": "空闲",
    "busy": "忙碌",
    "lost": "失联",
    // the training: its form, status and charts (training/)
    "how the gradients are synced": "梯度的同步方式",
    "S: ranks that hold a shard of the weights": "S：各持一份权重分片的 rank 数",
    "servers (S)": "服务器数（S）",
    "hidden": "隐藏层",
    "width of the MLP's two hidden layers": "MLP 两个隐藏层的宽度",
    "SGD steps": "SGD 步数",
    "samples per step, over every rank that computes": "每步的样本数（所有参与计算的 rank 合计）",
    "one training per method with these settings, one after another": "以这些设置为每种方法各训练一次，依次进行",
    "error:": "错误：",
    "No training yet: the presenter starts one from the Train panel.": "还没有训练：由主讲人在训练面板中开始。",
    "all workers": "所有工作节点",
    "loss per rank (click a step to open its gradient sync)": "每个 rank 的损失（点击某一步可打开其梯度同步）",
    "cross-entropy": "交叉熵",
    "accuracy per rank, on its part of the batch": "每个 rank 的准确率（在其分到的那部分批次上）",
    "step time: compute and communication": "每步时间：计算与通信",
    "compute": "计算",
    "communication": "通信",
    "this method is the backend's own call: it does not report its bytes": "此方法是后端自身的调用：不报告字节数",
    "bytes per rank per step: sent (solid), received (dotted)": "每步每个 rank 的字节数：发送（实线），接收（虚线）",
    "time per step": "每步时间",
    "communication share": "通信占比",
    "final loss": "最终损失",
    "held-out accuracy": "留出集准确率",
    "training": "训练",
    "run": "运行",
    "time per step (ms)": "每步时间（ms）",
    "communication share (%)": "通信占比（%）",
    "held-out accuracy (%)": "留出集准确率（%）",
    // the watched jobs (watched/)
    "No watched job yet:": "还没有监视的任务：",
    "the hang is over": "挂起已解除",
    "waiting": "等待中",
    "in flight": "进行中",
    "connected": "已连接",
    "gone": "已离开",
    "1 node": "1 个节点",
    "#seq": "序号",
    "bytes": "字节",
    "last rank": "最后的 rank",
    "lag": "延迟",
    "bucket": "桶",
    "lag max": "最大延迟",
    "lag mean": "平均延迟",
    "time mean": "平均时间",
    "from": "发送方",
    "to": "接收方",
    "messages": "消息",
    // opening a trace in Perfetto (perfetto.js)
    "The browser blocked the Perfetto window: allow pop-ups for this page, or download the trace.":
      "浏览器拦截了 Perfetto 窗口：请允许本页弹出窗口，或下载跟踪文件。",
    "The Perfetto window was closed before it opened the trace.": "Perfetto 窗口在打开跟踪文件前被关闭了。",
    // a server's refusals that the page can meet (validation.py, dispatcher.py, polls, rules.py)
    "no answer from the server": "服务器没有应答",
    "no ranks are connected": "没有 rank 连接",
    "names a rank twice": "重复列出了同一个 rank",
    "must name at least one rank": "至少要列出一个 rank",
    "must differ from the root (the sender)": "必须不同于根（发送方）",
    "a parameter server needs at least 2 ranks: one server and one worker": "参数服务器至少需要 2 个 rank：一个服务器和一个工作节点",
    "this poll is closed: it takes no more votes": "此投票已关闭：不再接受投票",
    "this poll has been revealed: it takes no more votes": "此投票已揭晓：不再接受投票",
    "this page has voted in this poll already": "本页已经在此投票中投过票",
    "this run gives no wrong answer to set beside the right one": "本次运行给不出可与正确答案并列的错误答案",
    "run it with capture full (the lecture data) to ask what a rank holds":
      "要问某个 rank 持有什么，请以 full 采集方式（讲课数据）运行",
    "only a stepwise run says what each rank moves": "只有逐步运行才能说明每个 rank 传输了什么",
    // what auto chose, and why (the server's model: predict.py, costs.py)
    "default guess (50 us a step, 1 GB/s, 4 GB/s reduced): no runs fitted yet":
      "默认估计（每步 50 µs，1 GB/s，规约 4 GB/s）：尚未拟合任何运行",
    "bench": "基准测试",
    // what a formula counts (the formula line under the stage, the compare table)
    "sent by every rank": "每个 rank 发送的量",
    "sent by the root": "根发送的量",
    "into the master": "流入主节点的量",
    "into the root": "流入根的量",
    "on the critical path": "关键路径上的量",
    "on the critical path (up the tree, then down)": "关键路径上的量（沿树向上，再向下）",
    "sent by each server (and as much received)": "每个服务器发送的量（接收的同样多）",
    "sent by the root, in ⌈log2 P⌉ steps": "根分 ⌈log2 P⌉ 步发送的量",
    "into the root, in ⌈log2 P⌉ steps": "分 ⌈log2 P⌉ 步流入根的量",
    // a failure's lead-in: the server's reason follows, said by its field (dom.js: reason)
    "Not resized:": "未调整大小：",
    "Set ranks": "设置 rank 数",
    "the world's size": "进程总数",
    "Not run:": "未运行：",
    "formulas:": "公式：",
    "compare:": "对比：",
    "sweep stopped:": "扫描已停止：",
    "Could not list the trainings:": "无法列出训练：",
    "Every method on the same data": "同一数据上的所有方法",
    "the same seed, initial weights and batches": "相同的种子、初始权重和批次",
    "loss per method, step by step, on the same batches": "每种方法每一步的损失（相同批次）",
    "bytes a step on each rank's link, the busier way (crossed: a server)": "每步各 rank 链路上的字节数，取较多的方向（交叉纹：服务器）",
    "the training method: parameter server, ring, tree, native, …": "训练方法：参数服务器、ring、tree、native……",
    "train with it": "用它训练",
    "train every method on the same data, side by side": "在同一数据上训练所有方法，并排对比",
    "Could not compare the trainings:": "无法对比训练：",
    "charts:": "图表：",
    "Could not list the watched jobs:": "无法列出监视的任务：",
    "Could not read the trace:": "无法读取跟踪文件：",
    "No audience link:": "没有听众链接：",
    // a barrier's lanes
    "last to arrive: all released": "最后到达：全部放行",
    // B and Z: the nodes and how ranks start
    "Nodes, local ranks and global ranks": "节点、本地 rank 与全局 rank",
    "Node": "节点",
    "Global rank": "全局 rank",
    "Local rank": "本地 rank",
    "World size": "进程总数",
    "a machine (a computer or server) with its GPUs or CPUs; here each holds a block of ranks": "一台机器（计算机或服务器），带有自己的 GPU 或 CPU；这里每个节点持有一段连续的 rank",
    "a process's number across every node, from 0, unique to it": "进程在所有节点中的唯一编号，从 0 开始",
    "a process's number within its node, from 0 on every node": "进程在本节点内的编号，每个节点都从 0 开始",
    "how many processes there are in all: nodes × processes a node": "进程总数：节点数 × 每个节点的进程数",
    "B closes · Z: how the ranks were started": "B 关闭 · Z：rank 是如何启动的",
    "Two ways to start the ranks: spawn against launcher": "启动 rank 的两种方式：派生方式与启动器方式",
    "spawn": "派生方式",
    "launcher": "启动器方式",
    "main process": "主进程",
    "your script is the main process: it starts a function in each subprocess": "你的脚本是主进程：它在每个子进程中启动一个函数",
    "the launcher is the main process: it starts your whole script once a rank": "启动器是主进程：它为每个 rank 启动一次你的整个脚本",
    "a rank's number": "rank 编号",
    "the function's first argument": "函数的第一个参数",
    "read from the variables": "从环境变量读取",
    "variables": "环境变量",
    "you set them before spawning": "在派生前由你设置",
    "it sets them for each rank": "启动器为每个 rank 设置",
    "several nodes": "多个节点",
    "one spawn a node: each rank works out its global rank itself": "每个节点派生一次：每个 rank 自己算出全局 rank",
    "one launcher a node, told its node's rank: it numbers the global ranks": "每个节点一个启动器，告知其节点编号：由它为全局 rank 编号",
    "the spawn way": "派生方式",
    "the launcher way": "启动器方式",
    "this cluster: started by hand, its variables set by whoever started it": "本集群：手动启动，环境变量由启动者设置",
    "where they met": "会合地址",
    "Z closes · B: nodes, local and global ranks": "Z 关闭 · B：节点、本地 rank 与全局 rank",
    "nodes and ranks": "节点与 rank",
    "spawn against launcher": "派生方式与启动器方式",
    "nodes: each rank's node, local rank and global rank, the world size": "节点：每个 rank 的节点、本地 rank、全局 rank、进程总数",
    "spawn against launcher: how each starts the ranks, the variables each sets": "派生方式与启动器方式：各自如何启动 rank、设置哪些环境变量",
    "close the poll, this help, J, C, T, K, B, Z": "关闭投票、本帮助、J、C、T、K、B、Z",
  },
  // what a watched job's server says (server/watched/words.py, rendered by phrases.js)
  phrases: {
    rank: "rank {n}",
    ranks: "rank {list}",
    ranks_more: "rank {list} 等，另有 {more} 个",
    the_other_ranks: "其余 {n} 个 rank",
    more: "另有 {n} 条",
    collective: "{op} #{seq}{group}（{size}）",
    collective_bucket: "{op} #{seq}{group}（{size}，桶 {bucket}）",
    of_group: "（通信组 {group}：{ranks}）",
    issued_by_all: "{what}，所有 rank 都已发起",
    send_to: "发给 {peer} 的 send（{size}）",
    recv_from: "来自 {peer} 的 recv（{size}）",
    op_seq: "{op} #{seq}",
    the_op: "该 {op}",
    waits_in: "{ranks} 在 {what} 中等待",
    wait_in: "{ranks} 在 {what} 中等待",
    last_reported: "{rank} 最后报告的是 #{seq}{unread}{silent}{seen}",
    and_unread: "（之后还有 {n} 次调用尚未读取）",
    reported_nothing: "{rank} 在此通信组中没有报告过{unread}{silent}{seen}",
    and_silent: "，已 {s} 秒没有消息",
    and_seen_at: "，最后出现在 {where}（{ago} 秒前）",
    said_nothing: "{rank} 已 {s} 秒没有消息{last}",
    seen_at: "{rank} 最后出现在 {where}（{ago} 秒前）",
    not_its_side: "{rank} 还没有发起对应的一方",
    last_issued: "（最后报告：{issued,}）",
    last_issued_seen: "（最后报告：{issued,}；最后出现在 {where}）",
    last_seen: "（最后出现在 {where}）",
    seq_in_group: "通信组 {group} 的 #{seq}",
    deadlock: "{ranks} 互相等待，谁都无法继续：{said}",
    waits_in_at: "{rank} 在 {what} 中等待（位于 {where}）",
    waits_on_them: "{ranks} 在等待它们",
    wait_on_them: "{ranks} 在等待它们",
    go_on: "{ranks} 继续运行",
    goes_on: "{ranks} 继续运行",
    disagree: "各 rank 在通信组 {group} 的 #{seq} 上发起的不一致：{sides}",
    disagree_why: "各 rank 在通信组 {group} 的 #{seq} 上发起的不一致：{sides}（{why}）",
    side: "{ranks}：{what}",
    until_timeout: "它们会一直等到后端超时",
    issued_op: "{op}",
    issued_of_dtype: "{op}（{dtype}）",
    issued_of: "{op}（{size}）",
    issued_into: "{op}（取出 {size}）",
    issued_in_out: "{op}（放入 {into}，取出 {out} {dtype}）",
    ops_differ: "操作不同",
    dtypes_differ: "数据类型不同",
    sizes_differ: "大小不同",
    splits_disagree: "各 rank 共放入 {into} 个元素，取出 {out} 个：某个 rank 的划分不一致",
    hang_over: "挂起已解除",
    went_on_past: "通信组 {group} 已越过 #{seq} 继续运行",
    reports_again: "{ranks} 已赶上：{s} 秒后重新报告",
    caught_up: "{ranks} 已赶上：{what} 在 {s} 秒后继续",
    ended_in_deadlock: "{ranks} 在死锁中结束",
    went_in_deadlock: "{ranks} 在死锁中离开",
    deadlock_over: "{ranks} 的死锁已解除",
    never_completed: "{what} 始终没有完成：{said}",
    ranks_ended: "{ranks} 已结束",
    ranks_went: "{ranks} 已离开",
    came_back: "{rank} 回来了：重新开始监视",
    went_without_goodbye: "{rank} 没有告别就离开了（被信号杀死、中止，或与服务器的连接断开）",
    stopped_by: "{rank} 被 {signal} 停止{code}",
    timed_out: "{rank} 超时{code}：{error}",
    raised: "{rank} 抛出异常{code}：{error}",
    exit_code: "（退出码 {code}）",
    ended: "{rank} 已结束",
    ended_with: "{rank} 已结束，退出码 {code}",
    job_done: "任务结束：完成",
    job_failed: "任务结束：失败",
    job_lost: "任务结束：失联",
    groups_dropped: "{rank} 声明的通信组超出一个任务能保存的范围（{groups} 个通信组，共 {ranks} 个 rank，都须小于进程总数）：已丢弃",
    too_many_groups: "某个 rank 声明的通信组名多于一个任务能保存的数量（{n}）：超出的已丢弃",
    too_many_ops: "某个 rank 声明的操作名多于一个任务能保存的数量（{n}）：超出的已丢弃",
    peer_beyond: "{rank} 声明的对端超出了 {n} 个进程的范围：已丢弃",
    links_full: "该任务已有 {n} 条链路：新链路上的流量不再记录",
    trimmed: "该任务只保留最新的集合通信，最多 {mb} MB：新的到来时，较旧的从列表中移除（总计仍统计每一个）",
    left_no_dump: "{ranks} 没有留下转储",
    waits_in_group: "{ranks} 在通信组 {group} 的 {what} 中等待",
    wait_in_group: "{ranks} 在通信组 {group} 的 {what} 中等待",
    it_left_no_dump: "{ranks} 没有留下转储：没有看到它发起该集合通信",
    they_left_no_dump: "{ranks} 没有留下转储：没有看到它们发起该集合通信",
    retired_without: "转储时它们的等待已结束，该集合通信在没有它们的情况下退出（后端超时或中止）",
    text: "{text}",
  },
  // a refusal no template knows, by the field the server names (i18n.js: refused)
  refusals: {
    "": "请求失败",
    "*": "未被接受",
    cluster: "集群正被其他任务占用",
    queue: "队列已满",
    store: "服务器的存储现在无法写入",
    token: "此链接无权这样做（需要主讲人链接）",
    error: "失败了（原因见英文页面）",
    departure: "结果从这里开始偏离集合通信的定义",
  },
};
