// The outcome of the person's last action on an operation: a success, or the news that someone acted first.

/**
 * It belongs to the attempt it was about: a success disappears once another attempt leaves; a conflict stays until the
 * person acts again.
 */
export interface Banner {
  tone: "success" | "conflict";
  text: string;
  attempt: number;
  at: number;
}

export function ActionBanner({ banner, attempt }: { banner: Banner | null; attempt: number }) {
  if (!banner || (banner.tone !== "conflict" && banner.attempt !== attempt)) return null;
  return (
    <p
      role={banner.tone === "conflict" ? "alert" : "status"}
      className={`rounded-md border px-3 py-2 ${
        banner.tone === "conflict"
          ? "border-phase-unknown/50 bg-phase-unknown-soft text-phase-unknown-ink"
          : "border-phase-confirmed/40 bg-phase-confirmed-soft text-phase-confirmed-ink"
      }`}
    >
      <span className="font-mono text-xs opacity-80">{new Date(banner.at).toISOString().slice(11, 19)} UTC · </span>
      {banner.text}
    </p>
  );
}
