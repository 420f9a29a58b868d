{{/* The release's name for every object: "<release>-mcp-gateway", or the release name alone when it already says so. */}}
{{- define "mcp-gateway.fullname" -}}
{{- if eq .Release.Name .Chart.Name -}}
{{- .Release.Name | trunc 63 -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "mcp-gateway.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: Helm
{{- end -}}

{{/* The gateway pods' selector. */}}
{{- define "mcp-gateway.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: gateway
{{- end -}}

{{/* The Secret holding tokens and keys: the release's own, or auth.existingSecret. */}}
{{- define "mcp-gateway.secretName" -}}
{{- default (include "mcp-gateway.fullname" .) .Values.auth.existingSecret -}}
{{- end -}}

{{/* The Redis URL of gateway.cluster, or nothing. */}}
{{- define "mcp-gateway.redisUrl" -}}
{{- if .Values.redis.enabled -}}
{{- printf "redis://%s-redis:6379" (include "mcp-gateway.fullname" .) -}}
{{- else -}}
{{- .Values.redis.url -}}
{{- end -}}
{{- end -}}
