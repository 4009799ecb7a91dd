// The report: console text (stdout) and the full JSON under bench/results/.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, type Goal, type Section, type SectionResult, type Settings } from './harness.js';

export interface SectionReport {
  name: string;
  title: string;
  seconds: number;
  /** Set when the section threw: the run failed. */
  error: string | null;
  result: SectionResult | null;
}

export interface Report {
  startedAt: string;
  finishedAt: string;
  machine: { node: string; platform: string; cpus: number; cpuModel: string; loadavgAtStart: number[] };
  settings: Omit<Settings, 'body'> & { bodyBytes: number };
  sections: SectionReport[];
  /** Every goal met. */
  goalsMet: boolean;
  /** The run itself worked (no section threw, no run errors); decides the exit code. */
  runOk: boolean;
}

export function newReport(settings: Settings): Report {
  const { body, ...rest } = settings;
  return {
    startedAt: new Date().toISOString(),
    finishedAt: '',
    machine: { node: process.version, platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? '?', loadavgAtStart: os.loadavg() },
    settings: { ...rest, bodyBytes: Buffer.byteLength(body) },
    sections: [],
    goalsMet: true,
    runOk: true,
  };
}

export function addSection(report: Report, section: Section, seconds: number, result: SectionResult | null, error: unknown): void {
  report.sections.push({
    name: section.name,
    title: section.title,
    seconds: Math.round(seconds * 10) / 10,
    error: error === null ? null : error instanceof Error ? (error.stack ?? error.message) : String(error),
    result,
  });
  if (error !== null || !result || result.runErrors.length) report.runOk = false;
  if (result?.goals.some((g) => !g.pass)) report.goalsMet = false;
}

function goalLine(g: Goal): string {
  return `  [${g.pass ? 'PASS' : 'FAIL'}] ${g.name}: ${g.actual} (goal ${g.target})`;
}

export function renderText(report: Report): string {
  const out: string[] = [];
  const s = report.settings;
  out.push('', `Capture benchmark  ${report.startedAt}`);
  out.push(`node ${report.machine.node}, ${report.machine.cpus} CPUs (${report.machine.cpuModel}), load average at start ${report.machine.loadavgAtStart.map((l) => l.toFixed(2)).join(' ')}`);
  out.push(`POST ${s.bodyBytes}-byte JSON, ${s.connections} connections, ${s.seconds} s per run after ${s.warmupSeconds} s warm-up`);
  for (const sec of report.sections) {
    out.push('', `== ${sec.title} (${sec.seconds} s)`);
    if (sec.error) out.push(`  ERROR: ${sec.error.split('\n').slice(0, 12).join('\n  ')}`);
    if (!sec.result) continue;
    for (const l of sec.result.lines) out.push(`  ${l}`);
    for (const g of sec.result.goals) out.push(goalLine(g));
    for (const e of sec.result.runErrors) out.push(`  RUN ERROR: ${e}`);
  }
  const goals = report.sections.flatMap((x) => x.result?.goals ?? []);
  out.push('', '== Summary');
  for (const g of goals) out.push(goalLine(g));
  out.push(`  goals: ${goals.filter((g) => g.pass).length}/${goals.length} met; run ${report.runOk ? 'OK' : 'FAILED'}`);
  out.push("  (2 shared cores: the load generator and the server compete for CPU, and colleagues' jobs add noise.)", '');
  return out.join('\n');
}

/** Writes bench/results/capture-<timestamp>.json and returns its path. */
export function writeJson(report: Report): string {
  const dir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `capture-${report.startedAt.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, JSON.stringify(report, null, 2) + '\n');
  return file;
}
