// The part of autocannon 9's programmatic API that bench/api.ts uses (the package ships no types).
declare module 'autocannon' {
  interface Options {
    url: string; method?: string; headers?: Record<string, string>; body?: string;
    connections?: number; duration?: number; overallRate?: number; timeout?: number;
  }
  interface Histogram { p50: number; p99: number; average: number; max: number; [p: string]: number }
  interface Result {
    duration: number; errors: number; timeouts: number; non2xx: number;
    latency: Histogram; requests: Histogram & { total: number };
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
