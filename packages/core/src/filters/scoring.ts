/** Per branch the highest score wins; a tie has no winner. */
export function scoringWinners(scores: Map<string, Map<string, number>>): string[] {
  const out: string[] = [];
  for (const [branch, classes] of scores) {
    let best: string | undefined;
    let bestScore = -Infinity;
    let tie = false;
    for (const [cls, score] of classes) {
      if (score > bestScore) {
        best = cls;
        bestScore = score;
        tie = false;
      } else if (score === bestScore) tie = true;
    }
    if (best !== undefined && !tie) out.push(branch === '' ? best : `${branch}.${best}`);
  }
  return out;
}
