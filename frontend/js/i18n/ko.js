// Korean (i18n.js says how these are used). The seeds' terms: 랭크, 청크, 집합 통신, 그래디언트; op,
// collective and algorithm names stay in English as the seeds keep them (reduce-scatter, all-gather).
// Right after a number only particles that read alike after any number (에, 에서, 에게, 의, 만큼):
// 로/으로, 를/을 and 가/이 depend on how the number is read.

export default {
  rank: "랭크 {n}",
  comma: ", ",
  semicolon: "; ",
  templates: {
    // the steps' captions (worker_agent/core/algorithms)
    "piece {n1}: {t1}": "조각 {n1}: {t1}",
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
    "{s1} · {s2} · {n1} ranks · {s3}": "{s1} · {s2} · 랭크 {n1}개 · {s3}",
    "{c1} ✓": "{c1} ✓",
    "{c1} ✗": "{c1} ✗",
    "R runs it · A algorithm · O op · P {c1} · 1–0 [ ] pick · Q asks the room":
      "R 실행 · A 알고리즘 · O 연산 · P {c1} · 1–0 [ ] 선택 · Q 청중에게 질문",
    // the formula line under the stage (formulas.js; the "what" of algorithms/formulas.py)
    "{s1} = {s2} sent by every rank": "{s1} = {s2}: 각 랭크가 보내는 양",
    "{s1} = {s2} sent by the root": "{s1} = {s2}: 루트가 보내는 양",
    "{s1} = {s2} into the master": "{s1} = {s2}: 마스터로 들어오는 양",
    "{s1} = {s2} into the root": "{s1} = {s2}: 루트로 들어오는 양",
    "{s1} = {s2} on the critical path": "{s1} = {s2}: 임계 경로 위의 양",
    "{s1} = {s2} on the critical path (up the tree, then down)": "{s1} = {s2}: 임계 경로 위의 양 (트리를 올라갔다가 내려옴)",
    "{s1} = {s2} sent by each server (and as much received)": "{s1} = {s2}: 각 서버가 보내는 양 (받는 양도 같음)",
    "({s1}) · measured {s2}": "({s1}) · 측정값 {s2}",
    "({s1}) · measured when the run ends": "({s1}) · 실행이 끝나면 측정",
    "{s1} · {s2} · {n1} ranks · {s3} · lecture data: a digit a block":
      "{s1} · {s2} · 랭크 {n1}개 · {s3} · 강의용 데이터: 블록마다 숫자 하나",
    "{s1} = {s2} sent by the root, in ⌈log2 P⌉ steps": "{s1} = {s2}: 루트가 ⌈log2 P⌉단계에 걸쳐 보내는 양",
    "{s1} = {s2} into the root, in ⌈log2 P⌉ steps": "{s1} = {s2}: ⌈log2 P⌉단계에 걸쳐 루트로 들어오는 양",
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
  },
  words: {
    // phases
    "local copy": "로컬 복사", exchange: "교환", fold: "접기", unfold: "펼치기", signal: "신호", pull: "가져오기(pull)",
      push: "보내기(push)", send: "보내기",
    sent: "보냄", received: "받음", "ring against tree all_reduce under one straggler":
      "straggler 하나가 있을 때 ring과 tree의 all_reduce 비교",
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
    "ask the room (1–4 a question; ↑ ↓ ← → its rank and step); the stage holds":
      "청중에게 질문 (1–4 질문 고르기; ↑ ↓ ← → 랭크와 단계); 화면은 멈춥니다",
    "reveal the answer, play on": "정답 공개 후 계속 재생", "close the poll": "투표 닫기", fullscreen: "전체 화면",
    "close the poll, this help, J, C, T, K": "투표, 이 도움말, J, C, T, K 닫기",
    "group: all, evens, odds, first half, one per node": "그룹: 전체, 짝수, 홀수, 앞쪽 절반, 노드마다 하나",
    "the next root": "다음 루트", "half / twice the count": "개수 절반 / 두 배",
    "the parameter server's S (servers)": "파라미터 서버의 S (서버 수)",
    "inputs: a digit, its rank, [1, 10, 100, 1000]·rank, r2c3":
      "입력: 숫자 하나, 자기 랭크, [1, 10, 100, 1000]·랭크, r2c3",
    "the seed's formulas; again: total, busiest link": "강의 자료의 공식; 다시: 전체, 가장 바쁜 링크",
    train: "학습", "a training step's gradient sync": "학습 스텝의 그래디언트 동기화", "export as HTML": "HTML로 내보내기",
    "lecture mode": "강의 모드", "this help": "이 도움말", language: "언어",
    // polls
    "Ask the room about this run": "이 실행에 대해 청중에게 묻기", "How many bytes cross the busiest link?":
      "가장 바쁜 링크로 몇 바이트가 지나갈까요?",
    "Which rank moves the most bytes?": "가장 많은 바이트를 옮기는 랭크는 어디일까요?",
    "Which algorithm finishes first at this size and P?": "이 크기와 P에서 어느 알고리즘이 먼저 끝날까요?",
    "1–4 asks · ↑ ↓ rank · ← → step · Esc cancels": "1–4 질문 · ↑ ↓ 랭크 · ← → 단계 · Esc 취소",
    "Your vote counted": "투표가 반영되었습니다", "You voted already": "이미 투표했습니다", "Voting has closed": "투표가 마감되었습니다",
    "The stage holds: Enter reveals the answer": "화면이 멈춰 있습니다: Enter로 정답 공개",
      "Enter reveals · Esc closes": "Enter 정답 공개 · Esc 닫기",
    "Esc closes": "Esc 닫기", "Tap your answer: one vote a phone": "답을 누르세요: 휴대폰마다 한 표",
      "You got it ✓": "정답입니다 ✓",
    "Not this time": "아쉽지만 오답입니다", "1 vote": "1표", "lecture data": "강의용 데이터", "own data": "직접 고른 데이터",
    // the panels beside and under the stage (a phone shows them under it)
    "Sweep sizes, every algorithm": "크기별 스윕, 모든 알고리즘",
    "Watching only: open the presenter link (the one with ?token=) to run collectives.":
      "보기 전용: 집합 통신을 실행하려면 발표자 링크(?token=이 붙은 것)를 여세요.",
    Perturb: "교란",
    Straggler: "느린 랭크(straggler)",
    "delay (s)": "지연 (s)",
    "Slow link": "느린 링크",
    "and rank": "그리고 랭크",
    Hang: "멈춤(hang)",
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
      "크기를 스윕하면('실행'에서) 모든 알고리즘의 크기별 시간과 busbw를, 측정값 위의 alpha-beta 모델과 함께 그립니다. 스윕의 실행은 화면과 청중 "
        + "페이지에 나오지 않습니다.",
    collective: "집합 통신",
    "size for P curve": "P 곡선의 크기",
    parameters: "파라미터 수",
    Predict: "예측하기",
  },
};
