"""Quality gates between a draft and its release: EvidenceGuard, repair, SemanticGuard."""
