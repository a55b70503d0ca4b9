// The versions of a dependency's breaker settings, newest first: what each set, who, when and why.
import { humanDuration } from "@/components/contracts/contract-words";
import { RelativeTime } from "@/components/ui/relative-time";
import type { DependencyView } from "@/lib/ledger/dependencies/dependencies";

export function SettingsHistory({ dep }: { dep: DependencyView }) {
  if (dep.settingsHistory.length === 0) {
    return (
      <p className="text-xs text-ink-subtle" data-testid="settings-history">
        Settings: the defaults (version 0), never edited.
      </p>
    );
  }
  return (
    <details className="text-xs" data-testid="settings-history">
      <summary className="cursor-pointer text-ink-muted hover:text-ink">
        Settings version {dep.settingsVersion}:{" "}
        {dep.settingsHistory.length === 1 ? "1 change" : `${dep.settingsHistory.length} latest changes`}
        <span className="sr-only"> of the {dep.name} breaker</span>
      </summary>
      <table className="mt-1.5 w-full border-collapse">
        <caption className="sr-only">Breaker settings versions of {dep.name}, newest first</caption>
        <thead>
          <tr className="border-b border-line text-left text-ink-muted">
            <th scope="col" className="py-1 pr-3 font-medium">
              Version
            </th>
            <th scope="col" className="py-1 pr-3 font-medium">
              Settings
            </th>
            <th scope="col" className="py-1 pr-3 font-medium">
              By
            </th>
            <th scope="col" className="py-1 pr-3 font-medium">
              When
            </th>
            <th scope="col" className="py-1 font-medium">
              Reason
            </th>
          </tr>
        </thead>
        <tbody>
          {dep.settingsHistory.map((v) => (
            <tr key={v.version} className="border-b border-line last:border-b-0">
              <td className="py-1 pr-3 tabular-nums">v{v.version}</td>
              <td className="py-1 pr-3 whitespace-nowrap">
                opens after {v.failureThreshold} · cooldown {humanDuration(v.cooldownMs)} · {v.probes}{" "}
                {v.probes === 1 ? "probe" : "probes"}
              </td>
              <td className="py-1 pr-3 break-all">{v.author}</td>
              <td className="py-1 pr-3 whitespace-nowrap">
                <RelativeTime value={v.createdAt} />
              </td>
              <td className="py-1 text-ink">{v.reason ?? "none given"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
