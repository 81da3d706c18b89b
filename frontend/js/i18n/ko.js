// Korean (i18n.js says how these are used). The seeds' terms: 랭크, 청크, 집합 통신, 그래디언트, 노드, 로컬
// 랭크, 글로벌 랭크, 프로세스 그룹, 월드 사이즈, 파라미터 서버, 워커; op, collective and algorithm names stay
// in English as the seeds keep them (reduce-scatter, all-gather), and so do the parameter server's pull and
// push. Right after a number or a name only particles that read alike after any (에, 에서, 에게, 의, 만큼),
// or both forms written out (은(는), 이(가)): 로/으로, 를/을 and 가/이 depend on how it is read.

export default {
  rank: "랭크 {n}",
  comma: ", ",
  semicolon: "; ",
  colon: ": ",
  templates: {
    // the steps' captions (worker_agent/core/algorithms)
    "piece {n1}: {t1}": "조각 {n1}: {t1}",
    // a lesson's stage (lecture/lesson.js)
    "This stage asks for {n1} ranks and the cluster has {n2}: start it with ringside up -n {n3}":
      "이 단계는 랭크 {n1}개가 필요한데 클러스터에는 {n2}개뿐입니다: ringside up -n {n3}으로 시작하세요",
    "Resizing the world to {n1} ranks…":
      "월드를 랭크 {n1}개로 바꾸는 중…",
    "This stage asks for {n1} ranks, over the {n2} the world may grow to: start it with ringside up --max-ranks {n3}":
      "이 단계는 랭크 {n1}개가 필요한데 월드는 {n2}개까지만 늘어납니다: ringside up --max-ranks {n3}으로 시작하세요",
    "1 to {n1}: the world grows or shrinks in place; the group field runs on some of them.":
      "1부터 {n1}까지: 다시 시작하지 않고 월드가 늘거나 줄어듭니다. 프로세스 그룹 칸은 그중 일부에서 실행합니다.",
    "On ranks 0 to {n1} of the cluster's {n2}": "클러스터의 랭크 {n2}개 중 0부터 {n1}까지에서",
    "each rank beyond the largest power of two, {n1}, combines its buffer into a partner's":
      "2의 거듭제곱 중 가장 큰 수({n1})를 넘는 각 랭크가 자기 버퍼를 파트너의 버퍼에 합칩니다",
    "each rank beyond the largest power of two, {n1}, combines its whole buffer into a partner's":
      "2의 거듭제곱 중 가장 큰 수({n1})를 넘는 각 랭크가 버퍼 전체를 파트너의 버퍼에 합칩니다",
    "each rank beyond the largest power of two, {n1}, hands its block to a partner":
      "2의 거듭제곱 중 가장 큰 수({n1})를 넘는 각 랭크가 자기 블록을 파트너에게 넘깁니다",
    ["every other rank still holding a partial result sends it to the rank {n1} place nearer the root, "
      + "which combines it with its own"]:
      "부분 결과를 아직 가진 나머지 랭크가 그것을 루트 쪽으로 {n1}칸 가까운 랭크에 보내고, 받은 랭크는 자기 것과 합칩니다",
    ["every other rank still holding a partial result sends it to the rank {n1} places nearer the root, "
      + "which combines it with its own"]:
      "부분 결과를 아직 가진 나머지 랭크가 그것을 루트 쪽으로 {n1}칸 가까운 랭크에 보내고, 받은 랭크는 자기 것과 합칩니다",
    "every partner hands the finished block to the rank it folded in": "각 파트너가 완성된 블록을 자신에게 합쳐졌던 랭크에 넘겨줍니다",
    "every partner sends all the blocks to the rank it folded in": "각 파트너가 모든 블록을 자신에게 합쳐졌던 랭크에 보냅니다",
    "every partner sends the finished result back to the rank it folded in":
      "각 파트너가 완성된 결과를 자신에게 합쳐졌던 랭크에 돌려보냅니다",
    "every rank at depth {n1} sends its partial result to its parent, which combines it with its own":
      "깊이 {n1}의 모든 랭크가 부분 결과를 부모에게 보내고, 부모는 그것을 자기 것과 합칩니다",
    "every rank at depth {n1} sends the result down to its children": "깊이 {n1}의 모든 랭크가 결과를 자식들에게 내려보냅니다",
    "every rank holding blocks hands the far half of them to the rank {n1} place further from the root":
      "블록을 가진 모든 랭크가 그중 먼 쪽 절반을 루트에서 {n1}칸 더 먼 랭크에 넘깁니다",
    "every rank holding blocks hands the far half of them to the rank {n1} places further from the root":
      "블록을 가진 모든 랭크가 그중 먼 쪽 절반을 루트에서 {n1}칸 더 먼 랭크에 넘깁니다",
    "every rank keeps the block addressed to itself": "모든 랭크가 자신에게 온 블록을 그대로 둡니다",
    "every rank passes a finished chunk to its right neighbour, which copies it":
      "모든 랭크가 완성된 청크 하나를 오른쪽 이웃에 넘기고, 이웃은 그것을 복사합니다",
    "every rank passes a finished segment ({n1} chunks) to its right neighbour, which copies it":
      "모든 랭크가 완성된 세그먼트 하나(청크 {n1}개)를 오른쪽 이웃에 넘기고, 이웃은 그것을 복사합니다",
    "every rank sends one chunk to its right neighbour, which combines it with its own":
      "모든 랭크가 청크 하나를 오른쪽 이웃에 보내고, 이웃은 그것을 자기 것과 합칩니다",
    "every rank sends one segment ({n1} chunks) to its right neighbour, which combines it with its own":
      "모든 랭크가 세그먼트 하나(청크 {n1}개)를 오른쪽 이웃에 보내고, 이웃은 그것을 자기 것과 합칩니다",
    "every rank sends half of its part to the rank {n1} away, which combines it with its own":
      "모든 랭크가 자기 몫의 절반을 {n1}만큼 떨어진 랭크에 보내고, 받은 랭크는 자기 것과 합칩니다",
    "every rank sends its finished part to the rank {n1} away, doubling what each holds":
      "모든 랭크가 완성된 몫을 {n1}만큼 떨어진 랭크에 보내, 각 랭크가 가진 것이 두 배가 됩니다",
    "every rank sends the blocks that belong on the other side to the rank {n1} away, which combines them":
      "모든 랭크가 반대편에 속하는 블록들을 {n1}만큼 떨어진 랭크에 보내고, 받은 랭크가 합칩니다",
    "every rank swaps all the blocks it holds with the rank {n1} away":
      "모든 랭크가 가진 블록 전부를 {n1}만큼 떨어진 랭크와 맞바꿉니다",
    "every rank swaps its buffer with the rank {n1} away (its rank XOR {n2}) and combines":
      "모든 랭크가 {n1}만큼 떨어진 랭크(자기 랭크 XOR {n2})와 버퍼를 맞바꾸고 합칩니다",
    "every rank sends the block addressed to the rank {n1} ahead of it": "모든 랭크가 {n1}칸 앞의 랭크에게 갈 블록을 보냅니다",
    "every rank signals the rank {n1} ahead of it, passing on who it has heard from":
      "모든 랭크가 {n1}칸 앞의 랭크에 신호를 보내며, 지금까지 신호를 받은 랭크들을 전달합니다",
    "every rank sends its block to {r1}": "모든 랭크가 자기 블록을 {r1}에 보냅니다",
    "every rank sends its buffer to {r1}, which combines them": "모든 랭크가 자기 버퍼를 {r1}에 보내고, 받은 랭크가 합칩니다",
    "every worker sends its buffer to the master, {r1}, which combines them":
      "모든 워커가 자기 버퍼를 마스터인 {r1}에 보내고, 마스터가 합칩니다",
    "the master, {r1}, sends the result back to every worker": "마스터인 {r1}에서 모든 워커로 결과를 돌려보냅니다",
    "pull weights (fan-out): every server sends its shard of the weights to every worker":
      "가중치 가져오기(pull, fan-out): 모든 서버가 자기 가중치 샤드를 모든 워커에 보냅니다",
    "pull weights (fan-out): the server, {r1}, sends the weights to every worker":
      "가중치 가져오기(pull, fan-out): 서버인 {r1}에서 모든 워커로 가중치를 보냅니다",
    ["push gradients (fan-in), aggregate and update (under SUM, w ← w − η·Σg): every worker sends each "
      + "shard of −η·g (η = 1) to that shard's server, which combines it with its shard of the weights"]:
      "그래디언트 보내기(push, fan-in), 집계와 업데이트(SUM이면 w ← w − η·Σg): 모든 워커가 −η·g (η = 1)의 각 샤드를 그 샤드의 서버로 보내고, "
        + "서버는 그것을 자기 가중치 샤드와 합칩니다",
    ["push gradients (fan-in), aggregate and update (under SUM, w ← w − η·Σg): every worker sends −η·g "
      + "(η = 1) to the server, {r1}, which combines each with the weights as it lands"]:
      "그래디언트 보내기(push, fan-in), 집계와 업데이트(SUM이면 w ← w − η·Σg): 모든 워커가 −η·g (η = 1)를 서버인 {r1}에 보내고, 서버는 도착하는 "
        + "대로 가중치와 합칩니다",
    "{r1} passes the data on to {r2}": "{r1}에서 {r2}에게 데이터를 넘겨줍니다",
    "{r1} sends every rank its own block": "{r1}에서 각 랭크로 그 랭크의 블록을 보냅니다",
    "{r1} sends its buffer to every other rank": "{r1}에서 다른 모든 랭크로 버퍼를 보냅니다",
    "{r1} sends its buffer to {r2}": "{r1}에서 {r2}에게 버퍼를 보냅니다",
    "ranks pass every block they hold {n1} place back toward the root":
      "랭크들이 가진 블록을 모두 루트 쪽으로 {n1}칸 되돌려 넘깁니다",
    "ranks pass every block they hold {n1} places back toward the root":
      "랭크들이 가진 블록을 모두 루트 쪽으로 {n1}칸 되돌려 넘깁니다",
    "the ranks holding the data send it {n1} place further from the root, doubling the holders":
      "데이터를 가진 랭크들이 루트에서 {n1}칸 더 먼 랭크로 보내, 데이터를 가진 랭크가 두 배가 됩니다",
    "the ranks holding the data send it {n1} places further from the root, doubling the holders":
      "데이터를 가진 랭크들이 루트에서 {n1}칸 더 먼 랭크로 보내, 데이터를 가진 랭크가 두 배가 됩니다",
    // a traced run's step (worker_agent/user/rebuild.py): the lines that sent, received and wrote
    "sent at {s1}, received at line {n1}": "{s1}에서 보내고 {n1}번째 줄에서 받음",
    "sent at {s1}, received at line {n1}, added in at line {n2}": "{s1}에서 보내고 {n1}번째 줄에서 받아 {n2}번째 줄에서 더함",
    "sent at {s1}, received at line {n1}, copied in at line {n2}": "{s1}에서 보내고 {n1}번째 줄에서 받아 {n2}번째 줄에서 복사함",
    "line {n1}": "{n1}번째 줄",
    "lines {s1}": "{s1}번째 줄",
    "{r1}": "{r1}",
    // the page's sentences around them (panels.js, runs.js, controls.js)
    "Step {n1} of {n2} · {c1}: {c2}": "{n2}단계 중 {n1}단계 · {c1}: {c2}",
    "{s1} by {s2}: 1 step. Every rank starts with its input.": "{s1} ({s2}): 1단계. 모든 랭크가 자기 입력으로 시작합니다.",
    "{s1} by {s2}: {n1} steps. Every rank starts with its input.":
      "{s1} ({s2}): {n1}단계. 모든 랭크가 자기 입력으로 시작합니다.",
    "{s1} by {s2} failed before its first step (Before / after says why).":
      "{s1} ({s2}): 첫 단계 전에 실패했습니다 (이유는 '전 / 후'에 있습니다).",
    "{s1} ({s2}): the backend's own call, timed as a whole.": "{s1} ({s2}): 백엔드 자체 호출로, 전체를 한 번에 측정했습니다.",
    "After step {n1}, every rank divides its sum by P = {n2}: the average, the run's output.":
      "{n1}단계 후 모든 랭크가 합을 P로 나눕니다 (P = {n2}): 그 평균이 이 실행의 출력입니다.",
    "step {n1} / {n2}": "{n1} / {n2}단계",
    "{c1} ✓": "{c1} ✓",
    "{c1} ✗": "{c1} ✗",
    // the first screen (first.js) and where the number of ranks changes (controls.js)
    "Press R to run {s1} on {n1} ranks; 1–0 picks a collective. Another number of ranks:":
      "R을 누르면 랭크 {n1}개에서 {s1}을(를) 실행합니다. 1–0으로 집합 통신을 고릅니다. 다른 수의 랭크:",
    "No run yet: {s1} on {n1} ranks, from these inputs.":
      "아직 실행한 것이 없습니다: 랭크 {n1}개의 {s1}, 이 입력에서 시작합니다.",
    "{n1} ranks connected:":
      "랭크 {n1}개 연결됨:",
    "R runs it · A algorithm · O op · P {c1} · 1–0 [ ] pick · Q asks the room":
      "R 실행 · A 알고리즘 · O 연산 · P {c1} · 1–0 [ ] 선택 · Q 청중에게 질문",
    "R runs {s1} · A algorithm · O op · P {c1} · 1–0 [ ] pick · Q asks the room":
      "R {s1} 실행 · A 알고리즘 · O 연산 · P {c1} · 1–0 [ ] 선택 · Q 청중에게 질문",
    // the formula line under the stage (formulas.js; the "what" of algorithms/formulas.py)
    "{s1} = {s2} sent by every rank": "{s1} = {s2}: 각 랭크가 보내는 양",
    "{s1} = {s2} sent by the root": "{s1} = {s2}: 루트가 보내는 양",
    "{s1} = {s2} into the master": "{s1} = {s2}: 마스터로 들어오는 양",
    "{s1} = {s2} into the root": "{s1} = {s2}: 루트로 들어오는 양",
    "{s1} = {s2} on the critical path": "{s1} = {s2}: 임계 경로 위의 양",
    "{s1} = {s2} on the critical path (up the tree, then down)": "{s1} = {s2}: 임계 경로 위의 양 (트리를 올라갔다가 내려옴)",
    "{s1} = {s2} sent by each server (and as much received)": "{s1} = {s2}: 각 서버가 보내는 양 (받는 양도 같음)",
    "{s1} = {s2} sent by the root, in ⌈log2 P⌉ steps": "{s1} = {s2}: 루트가 ⌈log2 P⌉단계에 걸쳐 보내는 양",
    "{s1} = {s2} into the root, in ⌈log2 P⌉ steps": "{s1} = {s2}: ⌈log2 P⌉단계에 걸쳐 루트로 들어오는 양",
    "({s1}) · measured {s2}": "({s1}) · 측정값 {s2}",
    "({s1}) · measured when the run ends": "({s1}) · 실행이 끝나면 측정",
    // the panels beside and under the stage (a phone shows them under it)
    "Run {s1}": "{s1} 실행",
    "sent {s1} · got {s2}": "보냄 {s1} · 받음 {s2}",
    // polls (polls.js, server/polls.py)
    "What does {r1} hold after step {n1}?": "{n1}단계 후 {r1}에는 무엇이 있을까요?",
    "How many bytes cross the busiest link ({s1} by {s2}, P={n1}, N={s3})?":
      "가장 바쁜 링크로 몇 바이트가 지나갈까요? ({s1}, {s2}, P={n1}, N={s3})",
    "Which finishes first: {s1} of {s2} on {n1} ranks?": "어느 알고리즘이 먼저 끝날까요: 랭크 {n1}개에서 {s2}의 {s1}?",
    "· your vote: {s1}": "· 내 투표: {s1}",
    "{n1} votes": "{n1}표",
    "· {c1}": "· {c1}",
    // the page's title, landmarks and dialogs (index.html)
    "Ringside: {w1} {w2} ({w3})": "Ringside: {w1} {w2} ({w3})",
    // the run form and the strip over the stage (controls.js)
    "{w1} needs at least two ranks": "{w1}에는 랭크가 두 개 이상 필요합니다",
    "key {n1}: {w1}": "키 {n1}: {w1}",
    "all {n1} ranks, or e.g. 0,2,3": "랭크 {n1}개 전부, 또는 예: 0,2,3",
    "{w1} needs an integer dtype": "{w1}에는 정수 자료형이 필요합니다",
    "{n1} ranks": "랭크 {n1}개",
    "ranks {w1}": "랭크 {w1}",
    "root {n1}": "루트 {n1}",
    "lecture data: {t1}": "강의용 데이터: {t1}",
    ["{\"pieces\": 4, \"steps\": [{\"phase\": \"reduce-scatter\", \"caption\": \"…\", \"transfers\": "
      + "[[0, 1, 3, 3, 1], …]}]}  (src, dst, chunk, into, reduce); at most {n1} steps"]:
      "{\"pieces\": 4, \"steps\": [{\"phase\": \"reduce-scatter\", \"caption\": \"…\", \"transfers\": "
        + "[[0, 1, 3, 3, 1], …]}]}  (보내는 랭크, 받는 랭크, 청크, 넣을 청크, 리덕션 여부); 최대 {n1}단계",
    "not JSON: {x1}": "JSON이 아닙니다",
    // the run on the stage, its panels and the player (runs.js, panels.js)
    "… and more: {n1} transfers in all": "… 외 더 있음: 전송 모두 {n1}건",
    "{r1} → {r2}: chunk {n1} {s1} copied into chunk {n2}": "{r1} → {r2}: 청크 {n1} {s1} → 청크 {n2}에 복사",
    "{l1} → {r1}: chunk {n1} {s1}": "{l1} → {r1}: 청크 {n1} {s1}",
    "show step {n1}": "{n1}단계 보기",
    "✗ off by {v1}": "✗ {v1}만큼 차이",
    "steps {n1}–{n2}": "{n1}–{n2}단계",
    // the stage's words, drawn in the page's language (cards.js, perturbation.js)
    "node {s1} · local {n1} · global {n2} of {n3}": "노드 {s1} · 로컬 랭크 {n1} · 글로벌 랭크 {n2}/{n3}",
    "{w1} · local {n1} · global {n2}/{n3}": "{w1} · 로컬 {n1} · 글로벌 {n2}/{n3}",
    "{r1} is not in this run's group": "{r1}: 이 실행의 프로세스 그룹 밖",
    "{r1} · not in group": "{r1} · 그룹 밖",
    "{r1} · out": "{r1} · 밖",
    "{r1} so far: sent {s1}, received {s2}": "{r1} 지금까지: 보냄 {s1}, 받음 {s2}",
    "{r1} chunk {n1} from {s1}": "{r1} 청크 {n1} · 출처: {s1}",
    "{r1} chunk {n1} from {s1} (not part of the output)": "{r1} 청크 {n1} · 출처: {s1} (출력의 일부 아님)",
    "min {s1}, max {s2}, sum {s3}; first {s4}": "최소 {s1}, 최대 {s2}, 합 {s3}; 앞부분 {s4}",
    "straggler · +{s1} a step": "느린 랭크 · 단계마다 +{s1}",
    "slow link {n1}–{n2} · {s1}": "느린 링크 {n1}–{n2} · {s1}",
    "everyone waits for it at step {n1}": "{n1}단계에서 모두가 이 랭크를 기다림",
    "done: step {n1}": "완료: {n1}단계",
    "waits for {n1}": "기다리는 랭크: {n1}",
    // the perturbations' panel and report (perturbation.js)
    "predicted extra: +{s1} (from the schedule)": "예측된 추가 시간: +{s1} (스케줄로 계산)",
    "· measured time: {v1}": "· 측정 시간: {v1}",
    "{r1} arrived last at {n1} of {n2} steps": "{r1}: {n2}단계 중 {n1}단계에서 가장 늦게 도착",
    "step {n1}: {r1} last (+{v1})": "{n1}단계: {r1} 가장 늦음 (+{v1})",
    "{n1} waited {v1} for {n2}": "랭크 {n1}의 대기 {v1} (랭크 {n2} 때문)",
    "… {n1} more steps": "… 단계 {n1}개 더",
    "under one straggler: {l1}": "느린 랭크 하나가 있을 때: {l1}",
    "{w1}: {v1} (predicted +{v2})": "{w1}: {v1} (예측 +{v2})",
    "{r1} never arrived at step {n1} (its first); {t1} waited for it: it was to {t2}":
      "{r1}: {n1}단계(첫 단계)에 끝내 도착하지 않음 · 기다린 랭크: {t1} · 할 일: {t2}",
    "{r1} never arrived at step {n1} (step {n2} counting from 1); {t1} waited for it: it was to {t2}":
      "{r1}: {n2}단계(0부터 세면 {n1})에 끝내 도착하지 않음 · 기다린 랭크: {t1} · 할 일: {t2}",
    "{r1} has not arrived at step {n1} (its first); {t1} wait for it: it is to {t2}":
      "{r1}: {n1}단계(첫 단계)에 아직 도착하지 않음 · 기다리는 랭크: {t1} · 할 일: {t2}",
    "{r1} has not arrived at step {n1} (step {n2} counting from 1); {t1} wait for it: it is to {t2}":
      "{r1}: {n2}단계(0부터 세면 {n1})에 아직 도착하지 않음 · 기다리는 랭크: {t1} · 할 일: {t2}",
    "send {t1}": "보내기: {t1}",
    "receive {t1}": "받기: {t1}",
    "chunk {n1} to {r1}": "청크 {n1} → {r1}",
    "chunk {n1} from {r1}": "청크 {n1} ← {r1}",
    "{t1} (its own report: {x1})": "{t1} (랭크 자신의 보고는 영어 페이지에서)",
    "{t1} (first report: {x1})": "{t1} (처음 보고는 영어 페이지에서)",
    // send/recv code's calls under the stage (calls.js)
    "Each rank's calls, {s1} in all: grey while in flight, red while the rank waits in the call":
      "랭크별 호출, 모두 {s1}: 전송 중에는 회색, 랭크가 호출 안에서 기다리는 동안은 빨간색",
    "waited {v1}": "대기 {v1}",
    "{w1} to {r1} ({w2}): posted {v1}, waited from {v2}, done {v3}":
      "{w1} → {r1} ({w2}): 호출 {v1}, 대기 시작 {v2}, 완료 {v3}",
    "{w1} from {r1} ({w2}): posted {v1}, waited from {v2}, done {v3}":
      "{w1} ← {r1} ({w2}): 호출 {v1}, 대기 시작 {v2}, 완료 {v3}",
    "{r1}, the sender, waited: {l1}": "보내는 쪽 {r1}의 대기: {l1}",
    // the lecture's keys and the seed's formulas (lessons.js, seed-formulas.js)
    "group: {t1} ({s1}): the others greyed on the stage once R runs it":
      "프로세스 그룹: {t1} ({s1}): R로 실행하면 나머지는 화면에서 회색이 됩니다",
    "The seed's all_reduce formulas at {s1}: {t1}": "강의 자료의 all_reduce 공식, {s1}: {t1}",
    "N made {n1} elements (the run had {n2}): ring's N/P splits evenly":
      "N을 원소 {n1}개로 맞췄습니다 (실행은 {n2}개): ring의 N/P가 나누어떨어지도록",
    // the compare chart and its table (compare.js)
    "{c1}: busiest rank": "{c1}: 가장 바쁜 랭크",
    "{c1}: busiest link": "{c1}: 가장 바쁜 링크",
    "{c1}: measured here": "{c1}: 여기서 측정",
    "= for N = {n1} B, P = {n2}": "= N = {n1} B, P = {n2}일 때",
    "parameter server (S={n1})": "파라미터 서버 (S={n1})",
    // the sweep and the prediction panels (sweep.js, predict.js)
    "dotted: one α, β, γ for every schedule, fitted to {n1} runs: RMS error {v1}":
      "점선: 모든 스케줄에 하나의 α, β, γ, 실행 {n1}개에 맞춤: RMS 오차 {v1}",
    "dotted: one α, β, γ for every schedule, fitted to {n1} runs: RMS error {v1}, {v2} on sizes held out":
      "점선: 모든 스케줄에 하나의 α, β, γ, 실행 {n1}개에 맞춤: RMS 오차 {v1}, 검증용 크기에서 {v2}",
    "Model: α {s1} µs a step, β {s2} GB/s, γ {s3} GB/s reduced ({c1}).":
      "모델: 단계마다 α {s1} µs, β {s2} GB/s, 리덕션 γ {s3} GB/s ({c1}).",
    ["It misses these points by {s1} (median): one latency per step for every schedule cannot hold "
      + "when the ranks outnumber the cores, as a step whose every rank waits on another pays the "
      + "scheduler each time."]:
      "이 점들에서 {s1} (중앙값) 벗어납니다: 랭크가 코어보다 많으면 모든 스케줄에 단계마다 지연 하나라는 가정이 맞지 않습니다. 모든 랭크가 다른 랭크를 기다리는 단계는 "
        + "매번 스케줄러 비용을 치르기 때문입니다.",
    "{w1}: time and bus bandwidth against size": "{w1}: 크기에 따른 시간과 버스 대역폭",
    "{w1} model": "{w1} 모델",
    "{w1}: queueing runs…": "{w1}: 실행을 대기열에 넣는 중…",
    "{w1}: {n1} of {n2} runs": "{w1}: 실행 {n2}개 중 {n1}개",
    "{w1}: {n1} runs, charted": "{w1}: 실행 {n1}개, 차트 완료",
    ["α {s1} a step, β {s2} GB/s, γ {s3} GB/s reduced — {c1}. Every schedule cut into the chunks it "
      + "runs fastest with (as chunks: auto)."]:
      "단계마다 α {s1}, β {s2} GB/s, 리덕션 γ {s3} GB/s — {c1}. 각 스케줄은 가장 빨리 도는 청크 수로 나눕니다 (chunks: auto처럼).",
    "{w1} beats {w2} below {v1} at P={n1}": "P={n1}, {v1} 미만: {w2}보다 {w1} 쪽이 빠름",
    "one algorithm is fastest from {s1} to {s2} at P={n1}": "P={n1}에서 {s1}부터 {s2}까지 한 알고리즘이 가장 빠름",
    "time against size at P={n1}": "P={n1}에서 크기에 따른 시간",
    "time against P at {s1} per rank": "랭크마다 {s1}일 때 P에 따른 시간",
    // a preset's prediction, a sentence each (predict.js's describe), the server's words in it
    "preset {w1}, {n1} ranks a node, NCCL {w2}.":
      "프리셋 {w1}: 노드마다 랭크 {n1}개, NCCL {w2}.",
    "preset {w1}, 1 rank a node, NCCL {w2}.":
      "프리셋 {w1}: 노드마다 랭크 1개, NCCL {w2}.",
    "Inside a node, {c1}: α {s1} a step, β {s2} GB/s.":
      "노드 안: {c1}, 단계마다 α {s1}, β {s2} GB/s.",
    "Between nodes, {c1}: α {s1} a step, β {s2} GB/s.":
      "노드 사이: {c1}, 단계마다 α {s1}, β {s2} GB/s.",
    "γ {s1} GB/s reduced.":
      "리덕션 γ {s1} GB/s.",
    "Sources: {c1}.":
      "출처: {c1}.",
    "Native: {c1}.":
      "native: {c1}.",
    ["NCCL {w1} src/graph/tuning.cc: baseLat ring, hwLat NVLink ring (inside a node) and network "
      + "ring (between nodes) per protocol; A100 datasheet: NVLink 600 GB/s (300 GB/s each way), "
      + "HBM2 1,555 GB/s (3 bytes moved per byte reduced); DGX A100 datasheet: a 200 Gb/s HDR NIC "
      + "per GPU"]:
      "NCCL {w1} src/graph/tuning.cc: 프로토콜별 ring의 baseLat, 노드 안 NVLink ring과 노드 사이 네트워크 ring의 hwLat; A100 데이터시트: NVLink 600 GB/s (방향마다 300 GB/s), HBM2 1,555 GB/s (리덕션 1바이트에 3바이트 이동); DGX A100 데이터시트: GPU마다 200 Gb/s HDR NIC 하나",
    ["NCCL {w1} src/graph/tuning.cc: baseLat ring, hwLat network ring (between hosts) and PCI "
      + "ring (inside one) per protocol; IEEE 802.3ba 100 Gb/s line rate (12.5 GB/s); PCIe 4.0 x16 "
      + "(31.5 GB/s); A100 HBM2 1,555 GB/s for the reduction"]:
      "NCCL {w1} src/graph/tuning.cc: 프로토콜별 ring의 baseLat, 호스트 사이 네트워크 ring과 호스트 안 PCI ring의 hwLat; IEEE 802.3ba 100 Gb/s 회선 속도 (12.5 GB/s); PCIe 4.0 x16 (31.5 GB/s); 리덕션에는 A100 HBM2 1,555 GB/s",
    ["NCCL {w1}'s choice (src/enqueue.cc: the algorithm and protocol of least predicted time) of "
      + "{l1}, with this preset"]:
      "이 프리셋에서 {l1} 중 NCCL {w1}이(가) 고르는 것 (src/enqueue.cc: 예측 시간이 가장 짧은 알고리즘과 프로토콜)",
    "native: measured line ({n1} runs)": "native: 측정에 맞춘 선 (실행 {n1}개)",
    "fitted to this cluster's runs ({n1} runs)": "이 클러스터의 실행에 맞춤 (실행 {n1}개)",
    // the cluster panel (cluster.js)
    "world size {n1}": "월드 사이즈 {n1}",
    "started by {l1}": "시작: {l1}",
    "node {w1} · torch {w2}": "노드 {w1} · torch {w2}",
    "local {n1}/{n2}": "로컬 {n1}/{n2}",
    "pid {n1}": "PID {n1}",
    // B and Z: the nodes and how ranks start (lecture/hosts.js, launchers.js)
    "node {w1}": "노드 {w1}",
    "global rank {n1}": "글로벌 랭크 {n1}",
    "local rank {n1}": "로컬 랭크 {n1}",
    "world size {n1} = {n2} nodes × {n3} ranks a node": "월드 사이즈 {n1} = 노드 {n2}개 × 노드마다 랭크 {n3}개",
    "this cluster: started by {s1}": "이 클러스터: {s1}에서 시작",
    // a barrier's lanes (stage/arrivals.js), the strip's stagger
    "arrived {v1}": "도착 {v1}",
    "{r1} arrived at {v1} and left at {v2}, once the last, {r2}, had arrived": "{r1}: {v1}에 도착, 마지막인 {r2}이(가) 도착한 뒤 {v2}에 떠남",
    "ranks arrive {v1} apart: each waits for the last": "랭크가 {v1} 간격으로 도착: 각 랭크는 마지막 랭크가 올 때까지 기다림",
    "ranks arrive {v1} apart": "랭크가 {v1} 간격으로 도착",
    // the training: its form, status and charts (training/)
    "compare all methods: {n1} of {n2} submitted": "모든 방법 비교: {n2}개 중 {n1}개 제출",
    "compare all methods: {n1} of {n2} submitted, each when the one before has ended":
      "모든 방법 비교: {n2}개 중 {n1}개 제출, 앞의 학습이 끝나면 하나씩",
    "hidden {n1} ({n2} parameters)": "은닉층 {n1} (파라미터 {n2}개)",
    "{t1}: step {n1} of {n2}": "{t1}: {n2}스텝 중 {n1}스텝",
    "loss {w1}": "손실 {w1}",
    "held-out accuracy {w1}": "검증 정확도 {w1}",
    "{w1}, step {n1}: its gradient sync ({s1}) is on the stage; step through it with the player":
      "{w1}, {n1}스텝: 그래디언트 동기화({s1})가 화면에 있습니다; 플레이어로 한 단계씩 보세요",
    "server {n1}: no loss": "서버 {n1}: 손실 없음",
    "server {n1}": "서버 {n1}",
    "{t1} sent": "{t1} 보냄",
    "{t1} received": "{t1} 받음",
    "busiest link ({w1})": "가장 바쁜 링크 ({w1})",
    "{n1} method finished": "방법 {n1}개 완료",
    "{n1} methods finished": "방법 {n1}개 완료",
    "{n1} steps: {t1}": "{n1}스텝: {t1}",
    "{w1} S={n1}": "{w1} S={n1}",
    "training method: {s1}: N trains with it, V compares every method":
      "학습 방법: {s1}: N은 이 방법으로 학습하고, V는 모든 방법을 비교합니다",
    "{w1}, step {n1}: its gradient sync is the backend's own all_reduce ({w2}), one call with no steps to show: a stepwise method (W) shows one step by step":
      "{w1}, {n1}스텝: 그래디언트 동기화가 백엔드 자체의 all_reduce({w2})라서 호출 한 번뿐이고 보여 줄 단계가 없습니다: 단계별 방법(W)은 한 단계씩 보여 줍니다",
    "the losses agree to within {v1}: each method sums the same gradients in its own order":
      "손실은 {v1} 이내로 같습니다: 방법마다 같은 그래디언트를 자기 순서로 더합니다",
    "{w1}: the backend's own call does not report its bytes": "{w1}: 백엔드 자체 호출이라 바이트를 보고하지 않습니다",
    // the watched jobs (watched/)
    "{s1} collectives": "집합 통신 {s1}개",
    "({s1} more unseen: the recorder overwrote them unread)": "(보지 못한 것 {s1}개 더: 레코더가 읽기 전에 덮어씀)",
    "pid {n1} · {s1}": "PID {n1} · {s1}",
    "last report at {v1}": "마지막 보고 {v1}",
    "last report at {v1} · {n1} missed, {n2} dropped": "마지막 보고 {v1} · {n1}개 놓침, {n2}개 버림",
    "exited {n1}": "종료 코드 {n1}",
    "{n1} nodes": "노드 {n1}개",
    "{w1} #{n1} (group {w2})": "{w1} #{n1} (그룹 {w2})",
    "last rank {n1}, lag {v1}": "마지막 랭크 {n1}, 지연 {v1}",
    "bucket {s1}": "버킷 {s1}",
    "· for {v1}": "· {v1} 동안",
    "node {w1} · {t1}": "노드 {w1} · {t1}",
    "nodes {w1} – {w2} · {t1}": "노드 {w1} – {w2} · {t1}",
    "{n1} more nodes": "노드 {n1}개 더",
    "ranks {l1}": "랭크 {l1}",
    "{t1} silent: {t2} goes on": "{t1} 응답 없음: {t2}은(는) 계속 진행",
    "{t1} silent: {t2} go on": "{t1} 응답 없음: {t2}은(는) 계속 진행",
    "mismatch on #{n1} of group {w1}: {t1}": "그룹 {w1}의 #{n1}에서 불일치: {t1}",
    "{t1} late: {t2} waits in {w1} #{n1} (group {w2}, {s1} × {w3})":
      "{t1} 늦음: {t2}이(가) {w1} #{n1}에서 기다림 (그룹 {w2}, {s1} × {w3})",
    "{t1} late: {t2} wait in {w1} #{n1} (group {w2}, {s1} × {w3})":
      "{t1} 늦음: {t2}이(가) {w1} #{n1}에서 기다림 (그룹 {w2}, {s1} × {w3})",
    "{t1} deadlocked": "{t1} 교착 상태(deadlock)",
    "{t1} late: {t2} waits in {w1} ({s1} × {w2})": "{t1} 늦음: {t2}이(가) {w1}에서 기다림 ({s1} × {w2})",
    "{t1} late: {t2} wait in {w1} ({s1} × {w2})": "{t1} 늦음: {t2}이(가) {w1}에서 기다림 ({s1} × {w2})",
    "Hang: {t1}": "멈춤: {t1}",
    // opening a trace in Perfetto (perfetto.js)
    "Opening {s1} …": "{s1} 여는 중…",
    "Sent the trace to Perfetto ({n1} bytes): see its tab.": "트레이스를 Perfetto로 보냈습니다 ({n1}바이트): 그 탭을 보세요.",
    "Could not reach {s1}: no answer in {n1} s. Download the trace and open it there later.":
      "{s1}에 닿을 수 없습니다: {n1}초 동안 응답 없음. 트레이스를 내려받아 나중에 거기서 여세요.",
    ["No answer from {s1} yet: it may be unreachable from here (offline?). Still trying; the download "
      + "link works without it."]:
      "{s1}에서 아직 응답이 없습니다: 여기서 닿지 않을 수 있습니다 (오프라인?). 계속 시도합니다; 내려받기 링크는 그것 없이도 됩니다.",
    // the lecture's overlays (hall.js, presenter.js)
    // a server's refusals that the page can meet (validation.py, dispatcher.py, polls, rules.py)
    "ranks {s1} of the world are not connected; every rank takes part in every {t1}":
      "월드의 랭크 {s1}이(가) 연결되어 있지 않습니다; 모든 {t1}에는 모든 랭크가 참여합니다",
    "{w1} holds the cluster; start a {t1} when it has ended": "{w1}이(가) 클러스터를 쓰고 있습니다; 끝나면 {t1}을(를) 시작하세요",
    "{n1} jobs are waiting already; submit again when some have run":
      "이미 작업 {n1}개가 기다리고 있습니다; 몇 개가 끝난 뒤 다시 제출하세요",
    "rank {n1} is not in the group [{s1}]: give one of its ranks":
      "랭크 {n1}은(는) 그룹 [{s1}]에 없습니다: 그룹의 랭크 하나를 주세요",
    ["rank {n1} is not in the group [{s1}] ({s2} has none, but its ranks count from one): give one of "
      + "its ranks"]:
      "랭크 {n1}은(는) 그룹 [{s1}]에 없습니다 ({s2}에는 루트가 없지만 그룹의 랭크를 셀 기준이 필요합니다): 그룹의 랭크 하나를 주세요",
    "rank {n1} is not in the group [{s1}]": "랭크 {n1}은(는) 그룹 [{s1}]에 없습니다",
    "rank {n1} does not exist (ranks are 0..{n2})": "랭크 {n1}은(는) 없습니다 (랭크는 0..{n2})",
    "{w1} needs at least {n1} ranks": "{w1}에는 랭크가 {n1}개 이상 필요합니다",
    "must be at least {n1}, not {w1}": "{n1} 이상이어야 합니다 ({w1}은(는) 안 됩니다)",
    "must be between {w1} and {w2}, not {w3}": "{w1}에서 {w2} 사이여야 합니다 ({w3}은(는) 안 됩니다)",
    "must be between {w1} and {w2} seconds, not {w3}": "{w1}초에서 {w2}초 사이여야 합니다 ({w3}은(는) 안 됩니다)",
    "must be {w1} to {w2}, not {w3}": "{w1}에서 {w2} 사이여야 합니다 ({w3}은(는) 안 됩니다)",
    "must be {w1} (one sample per worker) to {w2}, not {w3}":
      "{w1}(워커마다 샘플 하나)에서 {w2} 사이여야 합니다 ({w3}은(는) 안 됩니다)",
    "the learning rate must be above 0 and at most 10, not {w1}": "학습률은 0보다 크고 10 이하여야 합니다 ({w1}은(는) 안 됩니다)",
    "{w1} needs an integer dtype, not {w2}": "{w1}에는 정수 자료형이 필요합니다 ({w2}은(는) 안 됩니다)",
    "{w1} needs a floating dtype, not {w2}": "{w1}에는 부동소수점 자료형이 필요합니다 ({w2}은(는) 안 됩니다)",
    "{w1} is not available on {w2}": "{w1}은(는) {w2}에서 쓸 수 없습니다",
    ["servers add the workers' values into their own (a gradient into the weights); {s1} would divide "
      + "their own too"]:
      "서버는 워커의 값을 자기 값에 더합니다 (그래디언트를 가중치에); {s1}라면 자기 값까지 나누게 됩니다",
    "'full' ships every value and is limited to {n1} elements per rank (this run has {n2}); use 'summary'":
      "'full'은 모든 값을 보내므로 랭크마다 원소 {n1}개까지입니다 (이 실행은 {n2}개); 'summary'를 쓰세요",
    "{n1} elements do not split into {n2} equal shards, one per server: use a multiple of {n3}":
      "원소 {n1}개는 서버마다 하나씩 같은 샤드 {n2}개로 나뉘지 않습니다: {n3}의 배수를 쓰세요",
    "{w1} cuts each block into {n1} chunks, more than count={n2} elements":
      "{w1}은(는) 블록마다 청크 {n1}개로 나누는데, count={n2}개 원소보다 많습니다",
    "{w1} cuts each rank's buffer into {n1} chunks over {n2} steps; a run has at most {n3} chunks and {n4} steps":
      "{w1}은(는) 랭크마다 버퍼를 {n2}단계에 걸쳐 청크 {n1}개로 나눕니다; 한 실행은 청크 {n3}개, {n4}단계까지입니다",
    "{w1} moves chunks into chunks of another piece of a block, so each block must split evenly: count must be a multiple of {n1}, not {n2}":
      "{w1}은(는) 청크를 블록의 다른 조각의 청크로 옮기므로 블록이 고르게 나뉘어야 합니다: count는 {n2}이(가) 아니라 {n1}의 배수여야 합니다",
    "{n1} servers in a group of {n2} ranks leave no workers: at most {n3}":
      "랭크 {n2}개 그룹에 서버 {n1}개면 워커가 남지 않습니다: 최대 {n3}",
    "{w1} has no peer, so it takes none (leave peer out)": "{w1}에는 상대 랭크가 없으므로 받지 않습니다 (peer를 빼세요)",
    "{w1} does not reduce, so it takes no op (leave op out), not {w2}":
      "{w1}은(는) 리덕션을 하지 않으므로 연산을 받지 않습니다 (op를 빼세요), {w2}은(는) 안 됩니다",
    "no run {w1}": "실행 {w1} 없음",
    "no training {w1}": "학습 {w1} 없음",
    "no job {w1}": "작업 {w1} 없음",
    "no poll {w1}": "투표 {w1} 없음",
    "{w1} has no buffer to size N by": "{w1}에는 N을 잴 버퍼가 없습니다",
    "{n1} elements do not split into {n2} equal chunks, one a rank":
      "원소 {n1}개는 랭크마다 하나씩 같은 청크 {n2}개로 나뉘지 않습니다",
    "rank {n1} was lost during the {t1}": "{t1} 중에 랭크 {n1}의 연결이 끊겼습니다",
    "the server stopped before this {t1} finished": "이 {t1}이(가) 끝나기 전에 서버가 멈췄습니다",
    "the server failed while running this {t1} (its log says why)":
      "이 {t1}을(를) 실행하다가 서버가 실패했습니다 (이유는 서버 로그에)",
    "this poll has its {n1} votes": "이 투표는 {n1}표를 모두 받았습니다",
    "run {s1} is {t1}: ask about a run that is done": "실행 {s1}: {t1} 상태입니다: 끝난 실행에 대해 물으세요",
    "ranks {s1} move the same bytes: there is no one bottleneck": "랭크 {s1}이(가) 같은 바이트를 옮깁니다: 병목이 하나가 아닙니다",
    "run {s1} is held for a poll: its trace comes with the reveal":
      "실행 {s1}은(는) 투표 중이라 보류됩니다: 트레이스는 정답 공개와 함께 나옵니다",
    "rank {n1} is outside a world of {n2}": "랭크 {n1}은(는) 크기 {n2}의 월드 밖에 있습니다",
    "{w1} needs at least {n1} elements": "{w1}에는 원소가 {n1}개 이상 필요합니다",
    // what auto chose, and why (the server's model: predict.py, costs.py)
    "{t1} auto → {w1}": "{t1} auto → {w1}",
    "{t1} auto → {w1} · {t2} auto → {w2}": "{t1} auto → {w1} · {t2} auto → {w2}",
    ["native: no stepwise runs fitted yet, so the model cannot rank the schedules (with default guess (50 us a "
      + "step, 1 GB/s, 4 GB/s reduced): no runs fitted yet: {l1})"]:
      "native: 아직 맞춘 단계별 실행이 없어 모델이 스케줄의 순위를 매길 수 없습니다 (기본 추정값 (단계마다 50 µs, 1 GB/s, 리덕션 4 GB/s) 기준: {l1})",
    "{w1} has no schedule that runs here: native": "{w1}에는 여기서 돌 수 있는 스케줄이 없습니다: native",
    "native: no stepwise runs fitted yet, so the model cannot rank the schedules (with {c1}: {l1})":
      "native: 아직 맞춘 단계별 실행이 없어 모델이 스케줄의 순위를 매길 수 없습니다 ({c1} 기준: {l1})",
    ["native: no native {s1} runs at {n1} ranks measured at two sizes yet, so it cannot be compared; "
      + "predicted: {l1}"]:
      "native: 랭크 {n1}개에서 두 크기로 잰 native {s1} 실행이 아직 없어 비교할 수 없습니다; 예측: {l1}",
    "{w1}: predicted fastest, under {w2} of native's time ({t1}; {l1})":
      "{w1}: 가장 빠를 것으로 예측, native 시간의 {w2} 미만 ({t1}; {l1})",
    "native: no schedule is predicted under {s1} of native's time ({t1}; {l1})":
      "native: native 시간의 {s1} 미만으로 예측되는 스케줄이 없습니다 ({t1}; {l1})",
    "{w1}: measured fastest at {v1} ({l1}), where the model ranked {w2} first":
      "{w1}: {v1}에서 가장 빠르게 측정됨 ({l1}), 모델은 {w2}을(를) 첫째로 꼽았음",
    "{n1} chunks: predicted fastest of {l1} (with {c1})": "청크 {n1}개: {l1} 중 가장 빠를 것으로 예측 ({c1} 기준)",
    "the model errs by {s1} on sizes held out": "모델의 오차는 검증용 크기에서 {s1}",
    "the model errs by {s1} RMS over its runs": "모델의 오차는 그 실행들에 대해 RMS {s1}",
    "{w1} ×{n1} chunks {v1}": "{w1} ×청크 {n1}개 {v1}",
    "{w1} unknown": "{w1} 알 수 없음",
    // a failure's lead-in: the server's reason follows, said by its field (dom.js: reason)
    "Could not open run {w1}:": "실행 {w1} 열기 실패:",
    "Could not cancel {w1}:": "{w1} 취소 실패:",
    "Could not open training {w1}:": "학습 {w1} 열기 실패:",
    "step {n1}:": "{n1}스텝:",
    "Could not open job {w1}:": "작업 {w1} 열기 실패:",
    "Could not open the presenter's run {w1}:": "발표자의 실행 {w1} 열기 실패:",
    "Ask the room, then run {s1} · {s2} held": "청중에게 묻기 — {s1} · {s2}, 결과를 가린 채 실행",
    "voting closes after {n1} s": "{n1}초 후 투표 마감",
    "or type element {n1}": "또는 원소 {n1}의 값을 입력",
    "You typed {s1}": "입력한 값: {s1}",
    "choice {w1} is right": "보기 {w1}이(가) 정답",
    "choice {w1}": "보기 {w1}",
    "median {v1}": "중앙값 {v1}",
    "The number: {s1}": "정답 값: {s1}",
    // a wrong choice's mistake, at a poll's reveal (lecture/poll-card.js)
    "one step early: after step {n1}": "한 단계 이르게: {n1}단계 뒤",
    "one step late: after step {n1}": "한 단계 늦게: {n1}단계 뒤",
    "{r1}'s buffer after this step": "이 단계 뒤 {r1}의 버퍼",
    "{w1} instead of {w2}": "{w2} 대신 {w1}",
    "{n1} typed it": "{n1}명이 맞게 입력",
    "Every page has seen {s1}: it answers this already": "모든 화면이 이미 본 실행 {s1}에 이 질문의 답이 있습니다",
    "Every page has seen {s1}, which answers this: held from the room until the reveal":
      "모든 화면이 이미 본 실행 {s1}에 이 질문의 답이 있어 정답 공개까지 청중에게 가립니다",
    "Seed {n1} drawn: every page has seen a run of the seed asked, which answers this":
      "시드 {n1}을(를) 새로 뽑았습니다: 요청한 시드의 실행을 모든 화면이 이미 봤고 거기에 이 질문의 답이 있습니다",
    "{n1} pages connected": "연결된 화면 {n1}개",
    "closes in {n1} s": "{n1}초 후 마감",
    "Not asked: {c1}": "질문하지 못함: {c1}",
    // practice (practice.js, practice-chart.js, server/practice/)
    "Practice on run {w1}": "실행 {w1} 연습",
    "{n1} of {n2} right": "{n2}개 중 {n1}개 정답",
    "Step {n1}: right ✓, it holds {v1}": "{n1}단계: 정답 ✓, 값은 {v1}",
    "Step {n1}: you said {v1}, it holds {v2}": "{n1}단계: 내 답은 {v1}, 실제 값은 {v2}",
    "Step {n1} writes no recorded cell": "{n1}단계에는 기록된 값이 바뀌는 칸이 없습니다",
    "After step {n1}, what is the first value in chunk {n2} of {r1}?": "{n1}단계 후 {r1}의 청크 {n2}의 첫 값은 무엇일까요?",
    "step {n1}": "{n1}단계",
    "run {w1} is held for a question: it is practised after the reveal": "실행 {w1}은(는) 질문 때문에 보류 중입니다: 정답 공개 후에 연습할 수 있습니다",
    "run {w1} is {t1}: practise a run that is done": "실행 {w1}: {t1} 상태입니다: 끝난 실행으로 연습하세요",
    "run {w1} has no step whose cells were recorded: there is nothing to predict": "실행 {w1}에는 값이 기록된 단계가 없습니다: 예측할 것이 없습니다",
    "this page has answered step {n1} of run {w1} already": "이 화면은 실행 {w1}의 {n1}단계에 이미 답했습니다",
    "run {w1} has its {n1} answers": "실행 {w1}은(는) 답을 {n1}개 모두 받았습니다",
    "step {n1} of run {w1} asks nothing: no cell it writes was recorded": "실행 {w1}의 {n1}단계는 묻는 것이 없습니다: 값이 기록된 칸이 없습니다",
    "run {w1} has {n1} steps, numbered from 0": "실행 {w1}에는 0부터 센 단계가 {n1}개 있습니다",
  },
  words: {
    // practice (practice.js, practice-chart.js)
    Practice: "연습", "step this run alone, predicting a cell before each step": "이 실행을 혼자 한 단계씩 보며 단계마다 한 칸을 예측하기",
    "Practice: predict each step": "연습: 단계마다 예측", "how the room practised, per step": "단계별 청중의 연습 결과",
    "how the phones practising the run did, per step": "실행을 연습한 휴대폰들의 단계별 결과",
    "Counted for the presenter": "발표자에게 반영되었습니다", "Counted once already": "이미 한 번 반영되었습니다",
    "Not counted: not connected to the lecture": "반영되지 않음: 강의에 연결되어 있지 않습니다", "Not practised:": "연습할 수 없음:",
    "Stop practising": "연습 그만하기", "The end of the run": "실행이 끝났습니다", Again: "다시",
    "Step on": "다음 단계로", "your prediction": "내 예측", Check: "확인", "No run on the stage": "화면에 실행이 없습니다",
    "The phones' predictions, step by step · H closes": "휴대폰들의 단계별 예측 · H로 닫기",
    // phases
    "local copy": "로컬 복사", exchange: "교환", fold: "접기", unfold: "펼치기", signal: "신호", pull: "가져오기(pull)",
      push: "보내기(push)", send: "보내기",
    sent: "보냄", received: "받음", "ring against tree all_reduce under one straggler":
      "느린 랭크 하나가 있을 때 ring과 tree의 all_reduce 비교",
    // run states, roles, the connection
    queued: "대기 중", running: "실행 중", done: "완료", failed: "실패", cancelled: "취소됨", dumped: "덤프",
    presenter: "발표자", audience: "청중", "audience · following the presenter": "청중 · 발표자를 따라가는 중",
    "connecting…": "연결 중…", live: "실시간", "reconnecting…": "다시 연결 중…",
    // the header, panels and player
    Jobs: "작업", "light / dark": "밝게 / 어둡게", Lecture: "강의", "keyboard shortcuts": "키보드 단축키",
    "watched jobs: your own torchrun job's collectives (J)": "관찰 중인 작업: 내 torchrun 작업의 집합 통신 (J)",
    "lecture mode (F: fullscreen, ?: keys)": "강의 모드 (F: 전체 화면, ?: 키)",
    "Run a collective": "집합 통신 실행", Run: "실행", "Train a model across the ranks": "여러 랭크에 걸쳐 모델 학습",
    Train: "학습", History: "기록", "No run yet": "아직 실행한 것이 없습니다",
      "stop this run at its next iteration": "다음 반복에서 이 실행 멈추기",
    Cancel: "취소", "show what the presenter shows again": "발표자 화면을 다시 보기", "Follow presenter": "발표자 따라가기",
    "ranks and their buffers": "랭크와 버퍼", "to the inputs": "입력으로", "step back (←)": "한 단계 뒤로 (←)",
    "play / pause (Space)": "재생 / 일시정지 (Space)", "step forward (→)": "한 단계 앞으로 (→)", step: "단계", inputs: "입력",
    speed: "속도", "follow live": "실시간 따라가기", phases: "단계 구간", "This step": "이번 단계", "Before / after": "전 / 후",
    Traffic: "트래픽", "open ui.perfetto.dev and hand it this run's trace": "ui.perfetto.dev를 열고 이 실행의 트레이스 넘기기",
    "Open in Perfetto": "Perfetto에서 열기", "download trace": "트레이스 내려받기", "Export HTML": "HTML 내보내기",
    "Copy link": "링크 복사", "Link copied": "링크를 복사했습니다", "Poll: predict, then reveal": "투표: 예측한 뒤 공개",
    Training: "학습", "stop this training after its current step": "현재 스텝이 끝나면 학습 멈추기",
    "Open its gradient sync on the stage": "이 스텝의 그래디언트 동기화를 화면에 열기", "Methods compared": "방법 비교",
    "Watched jobs": "관찰 중인 작업", "back to the stage (J)": "화면으로 돌아가기 (J)", Close: "닫기",
    "Collectives per rank": "랭크별 집합 통신", "Latest: last rank and lag": "최근: 마지막 랭크와 지연",
    "Totals per op and group": "연산과 그룹별 합계", "p2p links": "p2p 링크", Sweep: "스윕", "Predict at scale": "규모별 예측",
    Cluster: "클러스터", cpu: "CPU", memory: "메모리", gpu: "GPU", "the audience's link: scan it": "청중용 링크: 스캔하세요",
    // the keys dialog
    Keys: "키", "play / pause": "재생 / 일시정지", "step back / forward": "한 단계 뒤로 / 앞으로",
      "faster / slower": "빠르게 / 느리게",
    "run what is picked (Enter after a number: that step)": "고른 것을 실행 (숫자 뒤 Enter: 그 단계로)",
    "pick a collective (] next, [ previous)": "집합 통신 고르기 (] 다음, [ 이전)", "next algorithm": "다음 알고리즘",
    "next reduction op": "다음 리덕션 연산", "lecture data on / off (a digit a block)":
      "강의용 데이터 켜기 / 끄기 (블록마다 숫자 하나)",
    "compare: bytes against P": "비교: P에 따른 바이트", "the training's charts": "학습 차트", "watched jobs": "관찰 중인 작업",
    "the audience's link as a QR code": "청중용 링크를 QR 코드로", "to the inputs / the result": "입력으로 / 결과로",
      "to step 3": "3단계로",
    "reveal the answer, play on": "정답 공개 후 계속 재생", "close the poll": "투표 닫기", fullscreen: "전체 화면",
    "close the poll, this help, J, C, T, K": "투표, 이 도움말, J, C, T, K 닫기",
    "the lesson's next stage: its run, or its question first": "레슨의 다음 단계: 그 실행, 또는 질문 먼저",
    "the lesson's stage": "레슨의 단계",
    "group: all, evens, odds, first half, one per node": "프로세스 그룹: 전체, 짝수, 홀수, 앞쪽 절반, 노드마다 하나",
    "the next root": "다음 루트", "half / twice the count": "개수 절반 / 두 배",
    "the parameter server's S (servers)": "파라미터 서버의 S (서버 수)",
    "inputs: a digit, its rank, [1, 10, 100, 1000]·rank, r2c3":
      "입력: 숫자 하나, 자기 랭크, [1, 10, 100, 1000]·랭크, r2c3",
    "the seed's formulas; again: total, busiest link": "강의 자료의 공식; 다시: 전체, 가장 바쁜 링크",
    train: "학습", "a training step's gradient sync": "학습 스텝의 그래디언트 동기화", "export as HTML": "HTML로 내보내기",
    "lecture mode": "강의 모드", "this help": "이 도움말", language: "언어",
    // polls
    "no timer": "시간 제한 없음",
    "a number may be typed": "숫자 입력 가능",
    "choices only": "보기에서만 고름",
    "1–5 asks · ↑ ↓ rank · ← → step · T timer · N numbers · Esc cancels": "1–5 질문 · ↑ ↓ 랭크 · ← → 단계 · T 시간 제한 · N 숫자 입력 · Esc 취소",
    "Running it held: the room sees the question when it has run": "결과를 가린 채 실행 중: 실행이 끝나면 청중에게 질문이 보입니다",
    "or type the bytes": "또는 바이트 수를 입력",
    "or type the rank": "또는 랭크 번호를 입력",
    "Your own question: choices or a number": "직접 만든 질문: 보기 또는 숫자",
    "Type your answer": "답을 입력하세요",
    "Your own question": "직접 만든 질문",
    "Question": "질문",
    "A number instead of choices": "보기 대신 숫자",
    "Run the picked run held behind it": "고른 실행도 결과를 가린 채 함께 실행",
    "Add a choice": "보기 추가",
    "Ask": "질문하기",
    "The number": "정답 값",
    "Tab moves · Enter asks · Esc cancels": "Tab 이동 · Enter 질문 · Esc 취소",
    "the question": "질문",
    "the right number": "정답 값",
    "tolerance": "허용 오차",
    "Send": "보내기",
    "Not connected to the lecture: wait a moment": "강의에 연결되어 있지 않습니다: 잠시 기다리세요",
    "held": "가려 둠",
    "the number": "숫자",
    "Enter reveals · B closes voting · W shows the tally · Esc closes": "Enter 정답 공개 · B 투표 마감 · W 집계 보이기 · Esc 닫기",
    "Enter reveals · B closes voting · W hides the tally · Esc closes": "Enter 정답 공개 · B 투표 마감 · W 집계 숨기기 · Esc 닫기",
    "ask the room, then run the pick held (1–4 a question, 5 your own; ↑ ↓ ← → rank, step; T, N)": "청중에게 묻고 고른 것을 결과를 가린 채 실행 (1–4 질문, 5 직접 만든 질문; ↑ ↓ ← → 랭크, 단계; T, N)",
    "close voting; the tally on the projector": "투표 마감; 집계를 프로젝터에",
    "How many bytes cross the busiest link?":
      "가장 바쁜 링크로 몇 바이트가 지나갈까요?",
    "Which rank moves the most bytes?": "가장 많은 바이트를 옮기는 랭크는 어디일까요?",
    "Which algorithm finishes first at this size and P?": "이 크기와 P에서 어느 알고리즘이 먼저 끝날까요?",
    "Your vote counted": "투표가 반영되었습니다", "You voted already": "이미 투표했습니다", "Voting has closed": "투표가 마감되었습니다",
    "The stage holds: Enter reveals the answer": "화면이 멈춰 있습니다: Enter로 정답 공개",
      "Enter reveals · Esc closes": "Enter 정답 공개 · Esc 닫기",
    "Esc closes": "Esc 닫기", "Tap your answer: one vote a phone": "답을 누르세요: 휴대폰마다 한 표",
      "You got it ✓": "정답입니다 ✓",
    "its input, before any step": "자기 입력 그대로, 첫 단계 전",
    "the end, after the last step": "마지막 단계 뒤의 결과",
    "not combined yet: only its own part": "아직 합치지 않음: 자기 몫만",
    "copied over instead of combined": "합치지 않고 덮어씀",
    "added instead of copied": "복사하지 않고 더함",
    "sent the other way round": "반대 방향으로 보냄",
    "Not this time": "아쉽지만 오답입니다", "1 vote": "1표", "lecture data": "강의용 데이터", "own data": "직접 고른 데이터",
    // the panels beside and under the stage (a phone shows them under it)
    "Sweep sizes, every algorithm": "크기별 스윕, 모든 알고리즘",
    "Watching only: open the presenter link (the one with ?token=) to run collectives.":
      "보기 전용: 집합 통신을 실행하려면 발표자 링크(?token=이 붙은 것)를 여세요.",
    Perturb: "교란",
    Straggler: "느린 랭크",
    "delay (s)": "지연 (s)",
    "Slow link": "느린 링크",
    "and rank": "그리고 랭크",
    Hang: "멈춤",
    "at step": "멈출 단계",
    "Run with these": "이대로 실행",
    method: "방법",
    steps: "스텝 수",
    "learning rate": "학습률",
    batch: "배치",
    "Compare all methods": "모든 방법 비교",
    rank: "랭크",
    in: "입력",
    out: "출력",
    "vs native": "native와 비교",
    time: "시간",
    predicted: "예측",
    "total sent": "보낸 총량",
    "busiest link": "가장 바쁜 링크",
    ["Sweep sizes (in Run) to plot time and busbw against size for every algorithm, with the alpha-beta "
      + "model over the measurements. A sweep's runs stay off the stage and the audience's pages."]:
      "크기를 스윕하면('실행'에서) 모든 알고리즘의 크기별 시간과 busbw를, 측정값 위의 α-β 모델과 함께 그립니다. 스윕의 실행은 화면과 청중 "
        + "페이지에 나오지 않습니다.",
    collective: "집합 통신",
    "size for P curve": "P 곡선의 크기",
    parameters: "파라미터 수",
    Predict: "예측하기",
    // the page's title, landmarks and dialogs (index.html)
    "Ringside — collective communication, step by step": "Ringside — 집합 통신을 단계별로",
    "bytes against P: master-worker, ring and tree side by side": "P에 따른 바이트: master_worker, ring, tree를 나란히",
    "the parameter server's formula and bytes beside the all_reduce algorithms'":
      "파라미터 서버의 공식과 바이트를 all_reduce 알고리즘들과 나란히",
    "a lane per rank or node, a mark per collective: ← → move between them": "랭크나 노드마다 한 줄, 집합 통신마다 표시 하나: ← →로 옮겨 다닙니다",
    "jobs: ↑ ↓ to move, Enter to open": "작업: ↑ ↓ 이동, Enter 열기",
    "the perturbation demo": "교란 데모",
    "Demo": "데모",
    "the formulas": "공식",
    "offline replay": "오프라인 재생",
    "lecture mode (L)": "강의 모드 (L)",
    "← → step · Home End inputs / result · Space play · L lecture mode · F fullscreen":
      "← → 단계 · Home End 입력 / 결과 · Space 재생 · L 강의 모드 · F 전체 화면",
    // the run form and the strip over the stage (controls.js)
    "algorithm": "알고리즘",
    "count": "개수",
    "dtype": "자료형",
    "op": "연산",
    "root": "루트",
    "peer": "상대 랭크",
    "servers": "서버 수",
    "group": "프로세스 그룹",
    "pattern": "입력 패턴",
    "capture": "기록 방식",
    "chunks": "청크 수",
    "starts another number; the group field runs on some of them.": "(으)로 다른 수의 랭크를 시작합니다. 프로세스 그룹 칸은 그중 일부에서 실행합니다.",
    "preview": "미리 보기",
    "schedule": "스케줄",
    "index": "인덱스",
    "digits": "숫자",
    "powers": "거듭제곱",
    "origin": "출처",
    "full": "전체",
    "summary": "요약",
    "none": "없음",
    "run every algorithm of this collective at growing sizes, then chart time and busbw":
      "이 집합 통신의 모든 알고리즘을 크기를 키워 가며 실행하고, 시간과 busbw를 그립니다",
    "No ranks are connected yet.": "아직 연결된 랭크가 없습니다.",
    "No ranks are connected.": "연결된 랭크가 없습니다.",
    "servers add into their weights: AVG would divide them too": "서버는 받은 값을 가중치에 더합니다: AVG라면 가중치까지 나누게 됩니다",
    "AVG needs a floating dtype": "AVG에는 부동소수점 자료형이 필요합니다",
    "each rank waits for the last": "각 랭크는 마지막 랭크가 올 때까지 기다림",
    "a digit a block": "블록마다 숫자 하나",
    "each value its rank": "값마다 자기 랭크",
    "[1, 10, 100, 1000]·rank": "[1, 10, 100, 1000]·랭크",
    "r2c3: rank 2's chunk 3": "r2c3: 랭크 2의 청크 3",
    "load a schedule from a JSON file": "JSON 파일에서 스케줄 불러오기",
    // the run on the stage, its panels and the player (runs.js, panels.js)
    "interrupted": "중단됨",
    "First departure:": "처음 어긋난 곳:",
    "? until the poll's answer is revealed": "? 투표의 정답이 공개될 때까지",
    // the stage's words, drawn in the page's language (cards.js, perturbation.js)
    "values smaller than reads from the back: fewer ranks or a larger screen": "값이 뒷자리에서 읽기에 너무 작음: 랭크를 줄이거나 더 큰 화면으로",
    "server": "서버",
    "not output": "출력 아님",
    "nobody": "없음",
    "input": "입력",
    "output": "출력",
    "weights w": "가중치 w",
    "done: no step": "완료: 단계 없음",
    // the perturbations' panel and report (perturbation.js)
    "bytes/s": "바이트/s",
    // the lecture's keys and the seed's formulas (lessons.js, seed-formulas.js)
    "all": "전체",
    "evens": "짝수",
    "odds": "홀수",
    "first half": "앞쪽 절반",
    "one per node": "노드마다 하나",
    "Y opens a training's step: train one first (N)": "Y는 학습의 스텝 하나를 엽니다: 먼저 학습하세요 (N)",
    "what each formula counts": "각 공식이 세는 것",
    "every rank's sends, in total": "모든 랭크가 보낸 양의 합",
    "the busiest link": "가장 바쁜 링크",
    "formula": "공식",
    "counts": "세는 것",
    "with this N and P": "이 N과 P로",
    "measured here": "여기서 측정",
    "simulated": "시뮬레이션",
    "in units of N": "N 단위",
    "running it…": "실행 중…",
    "not run at this N and P yet": "이 N과 P로는 아직 실행하지 않음",
    "Run something first: the formulas take its N and P.": "먼저 무언가를 실행하세요: 공식은 그 실행의 N과 P를 씁니다.",
    "M: the next count · measured here by runs of this N and P": "M: 다음 기준 · 이 N과 P로 실행해 여기서 측정",
    "sent per rank": "랭크마다 보내는 양",
    "along the tree's depth": "트리의 깊이를 따라 가는 양",
    // the compare chart and its table (compare.js)
    "·N through the busiest rank": "·N, 가장 바쁜 랭크를 지나는 양",
    "·N on the busiest link": "·N, 가장 바쁜 링크 위의 양",
    "measured here (run": "여기서 측정 (실행",
    "no closed form here": "여기서는 닫힌 형태가 없음",
    "not run at this N and P": "이 N과 P로는 실행하지 않음",
    "run it": "실행하기",
    "bytes against P, in units of N (one rank's buffer): lines simulated, diamonds measured here":
      "P에 따른 바이트, N(한 랭크의 버퍼) 단위: 선은 시뮬레이션, 마름모는 여기서 측정",
    "bytes against P, in units of N (one rank's buffer)": "P에 따른 바이트, N(한 랭크의 버퍼) 단위",
    "lines simulated, diamonds measured here": "선은 시뮬레이션, 마름모는 여기서 측정",
    "P (ranks)": "P (랭크 수)",
    "busiest rank (× N)": "가장 바쁜 랭크 (× N)",
    "busiest link (× N)": "가장 바쁜 링크 (× N)",
    // the sweep and the prediction panels (sweep.js, predict.js)
    "dotted: the model, with default parameters (no runs fitted yet)": "점선: 기본 파라미터의 모델 (아직 맞춘 실행 없음)",
    ["The model's pick is drawn with the time it predicted when it chose; native with the line fitted "
      + "to its runs."]:
      "모델이 고른 것은 고를 때 예측한 시간으로, native는 그 실행들에 맞춘 선으로 그립니다.",
    "bytes per rank": "랭크마다 바이트",
    "time (µs)": "시간 (µs)",
    "busbw (GB/s)": "busbw (GB/s)",
    "sweep: under way, in the Sweep panel below (its runs stay off the stage)":
      "스윕: 아래 스윕 패널에서 진행 중 (그 실행은 화면에 나오지 않습니다)",
    "this cluster's fit": "이 클러스터에 맞춘 값",
    "ranks per node": "노드마다 랭크 수",
    "predicting…": "예측 중…",
    "ranks (P)": "랭크 수 (P)",
    "native: NCCL's choice": "native: NCCL의 선택",
    "NVLink 3, 300 GB/s each way":
      "NVLink 3, 방향마다 300 GB/s",
    "HDR InfiniBand, 200 Gb/s per GPU":
      "HDR InfiniBand, GPU마다 200 Gb/s",
    "PCIe 4.0 x16, 31.5 GB/s each way":
      "PCIe 4.0 x16, 방향마다 31.5 GB/s",
    "100 Gb/s Ethernet or EDR InfiniBand":
      "100 Gb/s 이더넷 또는 EDR InfiniBand",
    ["Every schedule cut into the chunks it runs fastest with (as chunks: auto), with the "
      + "protocol NCCL would pick."]:
      "각 스케줄은 가장 빨리 도는 청크 수로 나누고 (chunks: auto처럼), NCCL이 고를 프로토콜로 계산합니다.",
    "default": "기본값",
    // the cluster panel (cluster.js)
    "ringside up": "ringside up",
    "environment variables": "환경 변수",
    "global rank": "글로벌 랭크",
    "local rank / ranks on this node": "로컬 랭크 / 이 노드의 랭크 수",
    "idle": "유휴",
    "busy": "작업 중",
    "lost": "연결 끊김",
    // the training: its form, status and charts (training/)
    "how the gradients are synced": "그래디언트를 동기화하는 방법",
    "S: ranks that hold a shard of the weights": "S: 가중치 샤드를 하나씩 맡는 랭크 수",
    "servers (S)": "서버 수 (S)",
    "hidden": "은닉층",
    "width of the MLP's two hidden layers": "MLP의 두 은닉층 너비",
    "SGD steps": "SGD 스텝 수",
    "samples per step, over every rank that computes": "스텝마다 샘플 수 (계산하는 모든 랭크를 합쳐)",
    "one training per method with these settings, one after another": "이 설정으로 방법마다 학습 하나씩, 차례로",
    "error:": "오류:",
    "No training yet: the presenter starts one from the Train panel.": "아직 학습이 없습니다: 발표자가 학습 패널에서 시작합니다.",
    "all workers": "모든 워커",
    "loss per rank (click a step to open its gradient sync)": "랭크별 손실 (스텝을 누르면 그 그래디언트 동기화를 엽니다)",
    "cross-entropy": "교차 엔트로피",
    "accuracy per rank, on its part of the batch": "랭크별 정확도 (배치에서 자기 몫에 대해)",
    "step time: compute and communication": "스텝 시간: 계산과 통신",
    "compute": "계산",
    "communication": "통신",
    "this method is the backend's own call: it does not report its bytes": "이 방법은 백엔드 자체 호출이라 바이트를 보고하지 않습니다",
    "bytes per rank per step: sent (solid), received (dotted)": "스텝마다 랭크별 바이트: 보냄(실선), 받음(점선)",
    "time per step": "스텝마다 시간",
    "communication share": "통신 비중",
    "final loss": "최종 손실",
    "held-out accuracy": "검증 정확도",
    "training": "학습",
    "run": "실행",
    "time per step (ms)": "스텝마다 시간 (ms)",
    "communication share (%)": "통신 비중 (%)",
    "held-out accuracy (%)": "검증 정확도 (%)",
    // the watched jobs (watched/)
    "No watched job yet:": "아직 관찰 중인 작업이 없습니다:",
    "the hang is over": "멈춤이 풀렸습니다",
    "waiting": "기다리는 중",
    "in flight": "진행 중",
    "connected": "연결됨",
    "gone": "사라짐",
    "1 node": "노드 1개",
    "#seq": "순번",
    "bytes": "바이트",
    "last rank": "마지막 랭크",
    "lag": "지연",
    "bucket": "버킷",
    "lag max": "최대 지연",
    "lag mean": "평균 지연",
    "time mean": "평균 시간",
    "from": "보낸 랭크",
    "to": "받은 랭크",
    "messages": "메시지",
    // opening a trace in Perfetto (perfetto.js)
    "The browser blocked the Perfetto window: allow pop-ups for this page, or download the trace.":
      "브라우저가 Perfetto 창을 막았습니다: 이 페이지의 팝업을 허용하거나 트레이스를 내려받으세요.",
    "The Perfetto window was closed before it opened the trace.": "Perfetto 창이 트레이스를 열기 전에 닫혔습니다.",
    // a server's refusals that the page can meet (validation.py, dispatcher.py, polls, rules.py)
    "no answer from the server": "서버가 응답하지 않습니다",
    "no ranks are connected": "연결된 랭크가 없습니다",
    "names a rank twice": "같은 랭크를 두 번 적었습니다",
    "must name at least one rank": "랭크를 하나 이상 적어야 합니다",
    "must differ from the root (the sender)": "루트(보내는 쪽)와 달라야 합니다",
    "a parameter server needs at least 2 ranks: one server and one worker":
      "파라미터 서버에는 랭크가 2개 이상 필요합니다: 서버 하나와 워커 하나",
    "this poll is closed: it takes no more votes": "이 투표는 닫혔습니다: 더 투표할 수 없습니다",
    "this poll has been revealed: it takes no more votes": "이 투표는 정답이 공개되었습니다: 더 투표할 수 없습니다",
    "this page has voted in this poll already": "이 페이지는 이미 이 투표에 투표했습니다",
    "this run gives no wrong answer to set beside the right one": "이 실행에서는 정답 옆에 둘 오답을 만들 수 없습니다",
    "run it with capture full (the lecture data) to ask what a rank holds":
      "랭크가 가진 것을 물으려면 기록 방식 full(강의용 데이터)로 실행하세요",
    "only a stepwise run says what each rank moves": "단계별 실행만 각 랭크가 옮기는 양을 알려 줍니다",
    // what auto chose, and why (the server's model: predict.py, costs.py)
    "default guess (50 us a step, 1 GB/s, 4 GB/s reduced): no runs fitted yet":
      "기본 추정값 (단계마다 50 µs, 1 GB/s, 리덕션 4 GB/s): 아직 맞춘 실행 없음",
    "bench": "벤치마크",
    // what a formula counts (the formula line under the stage, the compare table)
    "sent by every rank": "각 랭크가 보내는 양",
    "sent by the root": "루트가 보내는 양",
    "into the master": "마스터로 들어오는 양",
    "into the root": "루트로 들어오는 양",
    "on the critical path": "임계 경로 위의 양",
    "on the critical path (up the tree, then down)": "임계 경로 위의 양 (트리를 올라갔다가 내려옴)",
    "sent by each server (and as much received)": "각 서버가 보내는 양 (받는 양도 같음)",
    "sent by the root, in ⌈log2 P⌉ steps": "루트가 ⌈log2 P⌉단계에 걸쳐 보내는 양",
    "into the root, in ⌈log2 P⌉ steps": "⌈log2 P⌉단계에 걸쳐 루트로 들어오는 양",
    // a failure's lead-in: the server's reason follows, said by its field (dom.js: reason)
    "Not resized:": "크기를 바꾸지 않음:",
    "Set ranks": "랭크 수 설정",
    "the world's size": "월드 사이즈",
    "Not run:": "실행하지 않음:",
    "formulas:": "공식:",
    "compare:": "비교:",
    "sweep stopped:": "스윕 중단:",
    "Could not list the trainings:": "학습 목록을 가져올 수 없습니다:",
    "Every method on the same data": "같은 데이터에서 모든 방법",
    "the same seed, initial weights and batches": "같은 시드, 초기 가중치, 배치",
    "loss per method, step by step, on the same batches": "방법별 손실, 스텝마다 (같은 배치)",
    "bytes a step on each rank's link, the busier way (crossed: a server)":
      "스텝마다 각 랭크 링크의 바이트, 더 많은 방향 (X 무늬: 서버)",
    "the training method: parameter server, ring, tree, native, …": "학습 방법: 파라미터 서버, ring, tree, native, …",
    "train with it": "그 방법으로 학습",
    "train every method on the same data, side by side": "같은 데이터로 모든 방법을 학습해 나란히 비교",
    "Could not compare the trainings:": "학습들을 비교할 수 없습니다:",
    "charts:": "차트:",
    "Could not list the watched jobs:": "관찰 중인 작업 목록을 가져올 수 없습니다:",
    "Could not read the trace:": "트레이스를 읽을 수 없습니다:",
    "No audience link:": "청중용 링크 없음:",
    // a barrier's lanes
    "last to arrive: all released": "마지막 도착: 모두 해제",
    // B and Z: the nodes and how ranks start
    "Nodes, local ranks and global ranks": "노드, 로컬 랭크, 글로벌 랭크",
    "Node": "노드",
    "Global rank": "글로벌 랭크",
    "Local rank": "로컬 랭크",
    "World size": "월드 사이즈",
    "a machine (a computer or server) with its GPUs or CPUs; here each holds a block of ranks": "컴퓨터 혹은 서버와 같은 장비로, 여러 GPU나 CPU를 가집니다. 여기서는 노드마다 랭크 한 묶음을 가집니다",
    "a process's number across every node, from 0, unique to it": "모든 노드에 걸친 프로세스의 고유 번호, 0부터",
    "a process's number within its node, from 0 on every node": "한 노드 안에서의 프로세스 번호, 노드마다 0부터",
    "how many processes there are in all: nodes × processes a node": "전체 프로세스 수: 노드 수 × 노드마다 프로세스 수",
    "B closes · Z: how the ranks were started": "B 닫기 · Z: 랭크를 시작한 방식",
    "Two ways to start the ranks: spawn against launcher": "랭크를 시작하는 두 가지 방법: 스폰 방식 대 런처 방식",
    "spawn": "스폰 방식",
    "launcher": "런처 방식",
    "main process": "메인 프로세스",
    "your script is the main process: it starts a function in each subprocess": "사용자의 코드가 메인 프로세스가 되어 특정 함수를 서브 프로세스로 분기합니다",
    "the launcher is the main process: it starts your whole script once a rank": "런처가 메인 프로세스가 되어 사용자 코드 전체를 랭크마다 서브 프로세스로 분기합니다",
    "a rank's number": "랭크 번호",
    "the function's first argument": "함수의 첫 번째 인자",
    "read from the variables": "환경 변수에서 읽음",
    "variables": "환경 변수",
    "you set them before spawning": "분기하기 전에 직접 설정",
    "it sets them for each rank": "런처가 랭크마다 설정",
    "several nodes": "여러 노드",
    "one spawn a node: each rank works out its global rank itself": "노드마다 한 번 분기: 각 랭크가 글로벌 랭크를 직접 계산",
    "one launcher a node, told its node's rank: it numbers the global ranks": "노드마다 런처 하나, 노드 번호를 받아 글로벌 랭크를 매김",
    "the spawn way": "스폰 방식",
    "the launcher way": "런처 방식",
    "this cluster: started by hand, its variables set by whoever started it": "이 클러스터: 직접 시작됨, 환경 변수도 시작한 사람이 설정",
    "where they met": "만난 곳",
    "Z closes · B: nodes, local and global ranks": "Z 닫기 · B: 노드, 로컬 랭크, 글로벌 랭크",
    "nodes and ranks": "노드와 랭크",
    "spawn against launcher": "스폰 방식 대 런처 방식",
    "nodes: each rank's node, local rank and global rank, the world size": "노드: 각 랭크의 노드, 로컬 랭크, 글로벌 랭크, 월드 사이즈",
    "spawn against launcher: how each starts the ranks, the variables each sets": "스폰 방식 대 런처 방식: 랭크를 시작하는 방식과 각각 설정하는 환경 변수",
    "close the poll, this help, J, C, T, K, B, Z": "투표, 이 도움말, J, C, T, K, B, Z 닫기",
  },
  // what a watched job's server says (server/watched/words.py, rendered by phrases.js)
  phrases: {
    rank: "랭크 {n}",
    ranks: "랭크 {list}",
    ranks_more: "랭크 {list} 외 {more}개",
    the_other_ranks: "나머지 랭크 {n}개",
    more: "그 밖에 {n}개 더",
    collective: "{op} #{seq}{group} ({size})",
    collective_bucket: "{op} #{seq}{group} ({size}, 버킷 {bucket})",
    of_group: " (프로세스 그룹 {group}: {ranks})",
    issued_by_all: "{what}, 모든 랭크가 호출한 것",
    send_to: "{peer}에게 send ({size})",
    recv_from: "{peer}에게서 recv ({size})",
    op_seq: "{op} #{seq}",
    the_op: "그 {op}",
    waits_in: "{ranks}이(가) {what}에서 기다림",
    wait_in: "{ranks}이(가) {what}에서 기다림",
    last_reported: "{rank}의 마지막 보고: #{seq}{unread}{silent}{seen}",
    and_unread: " (이후 아직 읽지 않은 호출 {n}개)",
    reported_nothing: "{rank}의 마지막 보고: 이 프로세스 그룹에서는 없음{unread}{silent}{seen}",
    and_silent: ", {s}초째 보고 없음",
    and_seen_at: ", 마지막 위치 {where} ({ago}초 전)",
    said_nothing: "{rank}: {s}초째 보고 없음{last}",
    seen_at: "{rank}의 마지막 위치: {where} ({ago}초 전)",
    not_its_side: "{rank}이(가) 맞은편 호출을 아직 하지 않음",
    last_issued: " (마지막 보고: {issued,})",
    last_issued_seen: " (마지막 보고: {issued,}; 마지막 위치: {where})",
    last_seen: " (마지막 위치: {where})",
    seq_in_group: "프로세스 그룹 {group}의 #{seq}",
    deadlock: "{ranks}이(가) 서로를 기다려 아무도 진행할 수 없음: {said}",
    waits_in_at: "{rank}이(가) {what}에서 기다림 (위치 {where})",
    waits_on_them: "{ranks}이(가) 이들을 기다림",
    wait_on_them: "{ranks}이(가) 이들을 기다림",
    go_on: "{ranks}은(는) 계속 진행",
    goes_on: "{ranks}은(는) 계속 진행",
    disagree: "랭크들이 프로세스 그룹 {group}의 #{seq}에서 서로 다른 것을 호출함: {sides}",
    disagree_why: "랭크들이 프로세스 그룹 {group}의 #{seq}에서 서로 다른 것을 호출함: {sides} ({why})",
    side: "{ranks}: {what}",
    until_timeout: "백엔드의 타임아웃까지 기다리게 됨",
    issued_op: "{op}",
    issued_of_dtype: "{op} ({dtype})",
    issued_of: "{op} ({size})",
    issued_into: "{op} (받는 것 {size})",
    issued_in_out: "{op} (넣는 것 {into}, 받는 것 {out} {dtype})",
    ops_differ: "연산이 다름",
    dtypes_differ: "자료형이 다름",
    sizes_differ: "크기가 다름",
    splits_disagree: "랭크들이 모두 합쳐 원소 {into}개를 넣고 {out}개를 받음: 어떤 랭크의 분할이 맞지 않음",
    hang_over: "멈춤이 풀렸습니다",
    went_on_past: "프로세스 그룹 {group}이(가) #{seq}을(를) 지나 계속 진행함",
    reports_again: "{ranks} 따라잡음: {s}초 뒤 다시 보고함",
    caught_up: "{ranks} 따라잡음: {what}이(가) {s}초 뒤 계속 진행함",
    ended_in_deadlock: "{ranks}이(가) 교착 상태에서 종료됨",
    went_in_deadlock: "{ranks}이(가) 교착 상태에서 사라짐",
    deadlock_over: "{ranks}의 교착 상태가 풀림",
    never_completed: "{what}은(는) 끝내 완료되지 않음: {said}",
    ranks_ended: "{ranks} 종료됨",
    ranks_went: "{ranks} 사라짐",
    came_back: "{rank}이(가) 돌아옴: 다시 관찰함",
    went_without_goodbye: "{rank}이(가) 작별 인사 없이 사라짐 (시그널로 종료, 중단, 또는 서버와의 연결이 끊김)",
    stopped_by: "{rank}이(가) {signal} 시그널로 멈춤{code}",
    timed_out: "{rank} 타임아웃{code}: {error}",
    raised: "{rank}에서 예외 발생{code}: {error}",
    exit_code: " (종료 코드 {code})",
    ended: "{rank} 종료됨",
    ended_with: "{rank} 종료됨 (종료 코드 {code})",
    job_done: "작업 종료: 완료",
    job_failed: "작업 종료: 실패",
    job_lost: "작업 종료: 연결 끊김",
    groups_dropped:
      "{rank}이(가) 작업이 담을 수 있는 범위(프로세스 그룹 {groups}개, 모두 합쳐 랭크 {ranks}개, 각각 월드 사이즈 "
      + "미만)를 넘는 프로세스 그룹을 알림: 버림",
    too_many_groups: "어떤 랭크가 작업이 담을 수 있는 수({n}개)보다 많은 프로세스 그룹 이름을 알림: 넘는 것은 버림",
    too_many_ops: "어떤 랭크가 작업이 담을 수 있는 수({n}개)보다 많은 연산 이름을 알림: 넘는 것은 버림",
    peer_beyond: "{rank}이(가) 월드(랭크 {n}개) 밖의 상대를 알림: 버림",
    links_full: "작업의 링크가 {n}개: 새 링크의 트래픽은 버림",
    trimmed: "작업은 최신 집합 통신을 {mb} MB까지만 보관: 새것이 오면 오래된 것은 목록에서 빠짐 (합계는 모두 셈)",
    left_no_dump: "{ranks}은(는) 덤프를 남기지 않음",
    dumps_unread: "{mb} MB를 넘는 덤프는 읽지 않음: {ranks}은(는) 덤프를 남기지 않은 랭크로 판단함",
    waits_in_group: "{ranks}이(가) 프로세스 그룹 {group}의 {what}에서 기다림",
    wait_in_group: "{ranks}이(가) 프로세스 그룹 {group}의 {what}에서 기다림",
    it_left_no_dump: "{ranks}은(는) 덤프를 남기지 않음: 그것을 호출한 것이 보이지 않음",
    they_left_no_dump: "{ranks}은(는) 덤프를 남기지 않음: 그것을 호출한 것이 보이지 않음",
    retired_without: "덤프 시점에 이들의 기다림은 끝났고, 집합 통신은 이들 없이 끝남 (백엔드의 타임아웃 또는 중단)",
    text: "{text}",
  },
  // a refusal no template knows, by the field the server names (i18n.js: refused)
  refusals: {
    "": "요청이 실패했습니다",
    "*": "받아들여지지 않았습니다",
    cluster: "다른 작업이 클러스터를 쓰고 있습니다",
    queue: "대기열이 가득 찼습니다",
    store: "서버의 저장소에 지금 쓸 수 없습니다",
    token: "이 링크로는 할 수 없습니다 (발표자 링크가 필요합니다)",
    error: "실패했습니다 (이유는 영어 페이지에)",
    departure: "여기서 결과가 집합 통신의 정의에서 어긋납니다",
  },
};
