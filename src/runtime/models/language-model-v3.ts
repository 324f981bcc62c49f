import type { LanguageModel } from 'ai';

/**
 * The AI SDK's provider-side model interface (`LanguageModelV3` of `@ai-sdk/provider`), taken from
 * the `ai` package's own `LanguageModel` union so Waypoint depends on one SDK package for types.
 */
export type LanguageModelV3 = Extract<LanguageModel, { specificationVersion: 'v3' }>;
export type LanguageModelV3CallOptions = Parameters<LanguageModelV3['doStream']>[0];
export type LanguageModelV3StreamResult = Awaited<ReturnType<LanguageModelV3['doStream']>>;
export type LanguageModelV3GenerateResult = Awaited<ReturnType<LanguageModelV3['doGenerate']>>;
export type LanguageModelV3StreamPart = LanguageModelV3StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
