// Package kubernetes_test checks the Kubernetes manifests in this directory
// offline: every document is decoded strictly into the Kubernetes API type its
// kind names (an unknown or misspelt field is an error, as kubectl's
// server-side validation would make it), then the properties the README relies
// on are asserted. No cluster is needed.
package kubernetes_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// startAtPlaceholder is the value of START_AT in job.yaml that the README's
// apply command replaces with the common start time.
const startAtPlaceholder = "SET-AT-APPLY-TIME"

// document is one YAML document of a manifest file.
type document struct {
	file string // base name
	n    int    // 1-based position in the file
	text []byte
}

func (d document) String() string { return fmt.Sprintf("%s (document %d)", d.file, d.n) }

// manifests holds every object of the directory by kind and name.
type manifests struct {
	jobs                map[string]*batchv1.Job
	pods                map[string]*corev1.Pod
	configMaps          map[string]*corev1.ConfigMap
	secrets             map[string]*corev1.Secret
	claims              map[string]*corev1.PersistentVolumeClaim
	daemonSets          map[string]*appsv1.DaemonSet
	services            map[string]*corev1.Service
	accounts            map[string]*corev1.ServiceAccount
	roles               map[string]*rbacv1.Role
	clusterRoles        map[string]*rbacv1.ClusterRole
	roleBindings        map[string]*rbacv1.RoleBinding
	clusterRoleBindings map[string]*rbacv1.ClusterRoleBinding
}

// documentSeparator is a line "---" between YAML documents.
var documentSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// splitDocuments returns the non-empty documents of a multi-document YAML file.
func splitDocuments(file string, text []byte) []document {
	var docs []document
	for i, part := range documentSeparator.Split(string(text), -1) {
		if yamlIsEmpty(part) {
			continue
		}
		docs = append(docs, document{file: file, n: i + 1, text: []byte(part)})
	}
	return docs
}

// yamlIsEmpty reports whether text holds only comments and blank lines.
func yamlIsEmpty(text string) bool {
	for _, line := range strings.Split(text, "\n") {
		if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
			return false
		}
	}
	return true
}

// readDocuments reads every *.yaml file in this directory.
func readDocuments(t *testing.T) []document {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no *.yaml manifests in deploy/kubernetes")
	}
	var docs []document
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, splitDocuments(f, text)...)
	}
	return docs
}

// kindInfo is how a kind is decoded and validated.
type kindInfo struct {
	apiVersion string
	new        func() metav1.Object
	nameFn     apivalidation.ValidateNameFunc
}

// rbacAPI is the apiVersion of the RBAC kinds.
const rbacAPI = "rbac.authorization.k8s.io/v1"

// kinds are the kinds these manifests may use.
var kinds = map[string]kindInfo{
	"Job":                   {"batch/v1", func() metav1.Object { return &batchv1.Job{} }, apivalidation.NameIsDNSLabel},
	"Pod":                   {"v1", func() metav1.Object { return &corev1.Pod{} }, apivalidation.NameIsDNSSubdomain},
	"ConfigMap":             {"v1", func() metav1.Object { return &corev1.ConfigMap{} }, apivalidation.NameIsDNSSubdomain},
	"Secret":                {"v1", func() metav1.Object { return &corev1.Secret{} }, apivalidation.NameIsDNSSubdomain},
	"PersistentVolumeClaim": {"v1", func() metav1.Object { return &corev1.PersistentVolumeClaim{} }, apivalidation.NameIsDNSSubdomain},
	"DaemonSet":             {"apps/v1", func() metav1.Object { return &appsv1.DaemonSet{} }, apivalidation.NameIsDNSSubdomain},
	"Service":               {"v1", func() metav1.Object { return &corev1.Service{} }, apivalidation.NameIsDNS1035Label},
	"ServiceAccount":        {"v1", func() metav1.Object { return &corev1.ServiceAccount{} }, apivalidation.NameIsDNSSubdomain},
	"Role":                  {rbacAPI, func() metav1.Object { return &rbacv1.Role{} }, apivalidation.NameIsDNSSubdomain},
	"ClusterRole":           {rbacAPI, func() metav1.Object { return &rbacv1.ClusterRole{} }, apivalidation.NameIsDNSSubdomain},
	"RoleBinding":           {rbacAPI, func() metav1.Object { return &rbacv1.RoleBinding{} }, apivalidation.NameIsDNSSubdomain},
	"ClusterRoleBinding":    {rbacAPI, func() metav1.Object { return &rbacv1.ClusterRoleBinding{} }, apivalidation.NameIsDNSSubdomain},
}

// decode decodes one document strictly into the type its kind names: unknown
// fields, duplicate keys and values of the wrong type are errors.
func decode(d document) (metav1.Object, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(d.text, &tm); err != nil {
		return nil, fmt.Errorf("%s: %w", d, err)
	}
	info, ok := kinds[tm.Kind]
	if !ok {
		return nil, fmt.Errorf("%s: kind %q is not one this test knows: add it to kinds", d, tm.Kind)
	}
	if tm.APIVersion != info.apiVersion {
		return nil, fmt.Errorf("%s: %s has apiVersion %q, want %q", d, tm.Kind, tm.APIVersion, info.apiVersion)
	}
	obj := info.new()
	if err := yaml.UnmarshalStrict(d.text, obj); err != nil {
		return nil, fmt.Errorf("%s: strict decoding as %s %s: %w", d, tm.APIVersion, tm.Kind, err)
	}
	meta, ok := obj.(interface{ GetObjectMeta() metav1.Object })
	if !ok {
		return nil, fmt.Errorf("%s: no object metadata", d)
	}
	om := objectMeta(meta.GetObjectMeta())
	errs := apivalidation.ValidateObjectMeta(om, false, info.nameFn, field.NewPath("metadata"))
	if err := errs.ToAggregate(); err != nil {
		return nil, fmt.Errorf("%s: %w", d, err)
	}
	return obj, nil
}

// objectMeta returns the ObjectMeta behind an accessor.
func objectMeta(o metav1.Object) *metav1.ObjectMeta {
	return &metav1.ObjectMeta{Name: o.GetName(), GenerateName: o.GetGenerateName(), Namespace: o.GetNamespace(),
		Labels: o.GetLabels(), Annotations: o.GetAnnotations()}
}

// loadManifests decodes every document of the directory.
func loadManifests(t *testing.T) manifests {
	t.Helper()
	return decodeManifests(t, readDocuments(t))
}

// decodeManifests decodes the documents docs.
func decodeManifests(t *testing.T, docs []document) manifests {
	t.Helper()
	m := manifests{
		jobs: map[string]*batchv1.Job{}, pods: map[string]*corev1.Pod{}, configMaps: map[string]*corev1.ConfigMap{},
		secrets: map[string]*corev1.Secret{}, claims: map[string]*corev1.PersistentVolumeClaim{},
		daemonSets: map[string]*appsv1.DaemonSet{}, services: map[string]*corev1.Service{},
		accounts: map[string]*corev1.ServiceAccount{}, roles: map[string]*rbacv1.Role{},
		clusterRoles: map[string]*rbacv1.ClusterRole{}, roleBindings: map[string]*rbacv1.RoleBinding{},
		clusterRoleBindings: map[string]*rbacv1.ClusterRoleBinding{},
	}
	seen := map[string]string{}
	for _, d := range docs {
		obj, err := decode(d)
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("%T/%s", obj, obj.GetName())
		if prev, dup := seen[key]; dup {
			t.Fatalf("%s: %s is defined again (first in %s)", d, key, prev)
		}
		seen[key] = d.String()
		switch o := obj.(type) {
		case *batchv1.Job:
			m.jobs[o.Name] = o
		case *corev1.Pod:
			m.pods[o.Name] = o
		case *corev1.ConfigMap:
			m.configMaps[o.Name] = o
		case *corev1.Secret:
			m.secrets[o.Name] = o
		case *corev1.PersistentVolumeClaim:
			m.claims[o.Name] = o
		case *appsv1.DaemonSet:
			m.daemonSets[o.Name] = o
		case *corev1.Service:
			m.services[o.Name] = o
		case *corev1.ServiceAccount:
			m.accounts[o.Name] = o
		case *rbacv1.Role:
			m.roles[o.Name] = o
		case *rbacv1.ClusterRole:
			m.clusterRoles[o.Name] = o
		case *rbacv1.RoleBinding:
			m.roleBindings[o.Name] = o
		case *rbacv1.ClusterRoleBinding:
			m.clusterRoleBindings[o.Name] = o
		default:
			t.Fatalf("%s: kind %T is decoded but not kept: add it to loadManifests", d, o)
		}
	}
	return m
}

// podSpecs returns every pod template and pod of the manifests by a label
// ("Job NAME", "Pod NAME", "DaemonSet NAME").
func (m manifests) podSpecs() map[string]*corev1.PodTemplateSpec {
	specs := map[string]*corev1.PodTemplateSpec{}
	for name, j := range m.jobs {
		specs["Job "+name] = &j.Spec.Template
	}
	for name, ds := range m.daemonSets {
		specs["DaemonSet "+name] = &ds.Spec.Template
	}
	for name, p := range m.pods {
		specs["Pod "+name] = &corev1.PodTemplateSpec{ObjectMeta: p.ObjectMeta, Spec: p.Spec}
	}
	return specs
}

func TestEveryDocumentDecodesStrictly(t *testing.T) {
	m := loadManifests(t)
	want := map[string]int{"Job": 3, "Pod": 1, "ConfigMap": 1, "Secret": 2, "PersistentVolumeClaim": 1,
		"DaemonSet": 1, "Service": 1, "ServiceAccount": 2, "Role": 1, "ClusterRole": 1, "RoleBinding": 1, "ClusterRoleBinding": 1}
	got := map[string]int{"Job": len(m.jobs), "Pod": len(m.pods), "ConfigMap": len(m.configMaps),
		"Secret": len(m.secrets), "PersistentVolumeClaim": len(m.claims),
		"DaemonSet": len(m.daemonSets), "Service": len(m.services), "ServiceAccount": len(m.accounts),
		"Role": len(m.roles), "ClusterRole": len(m.clusterRoles), "RoleBinding": len(m.roleBindings),
		"ClusterRoleBinding": len(m.clusterRoleBindings)}
	for kind, n := range want {
		if got[kind] != n {
			t.Errorf("%d objects of kind %s, want %d (run, prepare and suite Jobs; collect Pod; plan ConfigMap; "+
				"database and agent Secrets; PVC; the agent's DaemonSet, Service, ServiceAccount and node-reading ClusterRole; "+
				"the client's ServiceAccount and pod-listing Role)", got[kind], kind, n)
		}
	}
	for kind := range kinds {
		if _, ok := want[kind]; !ok {
			t.Errorf("kind %s has no expected count", kind)
		}
	}
}

// TestStrictDecodingRejectsMistakes shows that the decoder used above catches
// the mistakes it is there for: a misspelt field, a field at the wrong level, a
// duplicate key and a malformed quantity.
func TestStrictDecodingRejectsMistakes(t *testing.T) {
	job, err := os.ReadFile("job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, old, new string }{
		{"misspelt field", "completionMode: Indexed", "completionMod: Indexed"},
		{"field at the wrong level", "imagePullPolicy: IfNotPresent", "imagePullPolicy: IfNotPresent\n          hostNetwork: true"},
		{"duplicate key", "  backoffLimit: 0", "  backoffLimit: 0\n  backoffLimit: 1"},
		{"bad quantity", "memory: 1Gi", "memory: 1 gigabyte"},
		{"wrong type", "completions: 4", "completions: four"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !bytes.Contains(job, []byte(tt.old)) {
				t.Fatalf("job.yaml has no %q to break", tt.old)
			}
			broken := bytes.Replace(job, []byte(tt.old), []byte(tt.new), 1)
			if _, err := decode(document{file: "job.yaml", n: 1, text: broken}); err == nil {
				t.Errorf("job.yaml with %q accepted", tt.new)
			}
		})
	}
}

// TestPodsAreSecureAndBounded checks every pod the manifests create: non-root,
// read-only root file system, no capabilities, no privilege escalation, seccomp,
// resource requests and limits, and every reference (volume, claim, Secret,
// ConfigMap, $(VAR)) resolving within the manifests.
func TestPodsAreSecureAndBounded(t *testing.T) {
	m := loadManifests(t)
	for name, tmpl := range m.podSpecs() {
		t.Run(name, func(t *testing.T) {
			spec := &tmpl.Spec
			if errs := metav1validation.ValidateLabels(tmpl.Labels, field.NewPath("labels")); len(errs) > 0 {
				t.Error(errs.ToAggregate())
			}
			if strings.HasPrefix(name, "DaemonSet ") {
				// A DaemonSet's pods can only be Always (the default): an agent is a service.
				if spec.RestartPolicy != "" && spec.RestartPolicy != corev1.RestartPolicyAlways {
					t.Errorf("restartPolicy %q: a DaemonSet allows only Always", spec.RestartPolicy)
				}
			} else if spec.RestartPolicy != corev1.RestartPolicyNever {
				t.Errorf("restartPolicy %q, want Never (a restarted client would measure another interval)", spec.RestartPolicy)
			}
			psc := spec.SecurityContext
			if psc == nil || !isTrue(psc.RunAsNonRoot) || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
				t.Errorf("pod securityContext must set runAsNonRoot: true and a non-zero runAsUser, got %+v", psc)
			} else if psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
				t.Errorf("pod securityContext.seccompProfile must be RuntimeDefault")
			}
			checkTopologySpread(t, tmpl)
			volumes := checkVolumes(t, m, spec)
			if len(spec.Containers) == 0 {
				t.Fatal("no containers")
			}
			for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
				checkContainer(t, m, c, volumes)
			}
		})
	}
}

func checkTopologySpread(t *testing.T, tmpl *corev1.PodTemplateSpec) {
	t.Helper()
	for _, c := range tmpl.Spec.TopologySpreadConstraints {
		sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
		if err != nil {
			t.Errorf("topologySpreadConstraints selector: %v", err)
			continue
		}
		if !sel.Matches(labels.Set(tmpl.Labels)) {
			t.Errorf("topologySpreadConstraints selector %s does not match the pod's labels %v: it would spread nothing", sel, tmpl.Labels)
		}
	}
}

// checkVolumes checks the volumes' sources and returns them by name.
func checkVolumes(t *testing.T, m manifests, spec *corev1.PodSpec) map[string]corev1.Volume {
	t.Helper()
	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		if errs := validation.IsDNS1123Label(v.Name); len(errs) > 0 {
			t.Errorf("volume name %q: %s", v.Name, strings.Join(errs, "; "))
		}
		volumes[v.Name] = v
		switch {
		case v.PersistentVolumeClaim != nil:
			claim, ok := m.claims[v.PersistentVolumeClaim.ClaimName]
			if !ok {
				t.Errorf("volume %s: claim %q is not in pvc.yaml", v.Name, v.PersistentVolumeClaim.ClaimName)
			} else if !slices.Contains(claim.Spec.AccessModes, corev1.ReadWriteMany) {
				t.Errorf("claim %s must be ReadWriteMany: the clients run on several nodes", claim.Name)
			}
		case v.ConfigMap != nil:
			cm, ok := m.configMaps[v.ConfigMap.Name]
			if !ok {
				t.Errorf("volume %s: ConfigMap %q is not defined", v.Name, v.ConfigMap.Name)
				continue
			}
			for _, item := range v.ConfigMap.Items {
				if _, ok := cm.Data[item.Key]; !ok {
					t.Errorf("volume %s: ConfigMap %s has no key %q", v.Name, cm.Name, item.Key)
				}
			}
		case v.EmptyDir != nil:
			if v.EmptyDir.SizeLimit == nil {
				t.Errorf("emptyDir %s needs a sizeLimit", v.Name)
			}
		default:
			t.Errorf("volume %s: a source this test does not check", v.Name)
		}
	}
	return volumes
}

// varRef is a $(VAR) reference that Kubernetes expands in command, args and env values.
var varRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

func checkContainer(t *testing.T, m manifests, c corev1.Container, volumes map[string]corev1.Volume) {
	t.Helper()
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Errorf("container %s has no securityContext", c.Name)
	case !isTrue(sc.RunAsNonRoot):
		t.Errorf("container %s: runAsNonRoot must be true", c.Name)
	case !isTrue(sc.ReadOnlyRootFilesystem):
		t.Errorf("container %s: readOnlyRootFilesystem must be true", c.Name)
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Errorf("container %s: allowPrivilegeEscalation must be false", c.Name)
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("container %s: capabilities must drop ALL and add none", c.Name)
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, hasReq := c.Resources.Requests[r]
		lim, hasLim := c.Resources.Limits[r]
		if !hasReq || !hasLim {
			t.Errorf("container %s: set both requests and limits for %s", c.Name, r)
		} else if req.Cmp(lim) > 0 {
			t.Errorf("container %s: %s request %s above its limit %s", c.Name, r, req.String(), lim.String())
		}
	}
	for _, vm := range c.VolumeMounts {
		if _, ok := volumes[vm.Name]; !ok {
			t.Errorf("container %s mounts %q, which is not a volume of the pod", c.Name, vm.Name)
		}
	}
	if c.Image == "" || !strings.Contains(c.Image, ":") {
		t.Errorf("container %s: image %q needs a tag", c.Name, c.Image)
	}
	defined := map[string]bool{}
	for _, e := range c.Env {
		if errs := validation.IsEnvVarName(e.Name); len(errs) > 0 {
			t.Errorf("env %q: %s", e.Name, strings.Join(errs, "; "))
		}
		for _, ref := range varRef.FindAllStringSubmatch(e.Value, -1) {
			if !defined[ref[1]] {
				t.Errorf("container %s: env %s refers to $(%s), which is not defined before it", c.Name, e.Name, ref[1])
			}
		}
		defined[e.Name] = true
		checkEnvSource(t, m, c.Name, e)
	}
	for _, arg := range append(slices.Clone(c.Command), c.Args...) {
		for _, ref := range varRef.FindAllStringSubmatch(arg, -1) {
			if !defined[ref[1]] && ref[1] != "JOB_COMPLETION_INDEX" {
				t.Errorf("container %s: %q refers to $(%s), which is not in env: Kubernetes would pass it literally", c.Name, arg, ref[1])
			}
		}
	}
}

// passwordVars are the variables fairbench reads passwords from.
var passwordVars = []string{"MYSQL_PWD", "PGPASSWORD"}

func checkEnvSource(t *testing.T, m manifests, container string, e corev1.EnvVar) {
	t.Helper()
	if slices.Contains(passwordVars, e.Name) && (e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
		t.Errorf("container %s: %s must come from a Secret (valueFrom.secretKeyRef), never a literal", container, e.Name)
	}
	if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
		return
	}
	ref := e.ValueFrom.SecretKeyRef
	s, ok := m.secrets[ref.Name]
	if !ok {
		t.Errorf("container %s: env %s reads Secret %q, which secret.example.yaml does not define", container, e.Name, ref.Name)
		return
	}
	if _, ok := s.StringData[ref.Key]; !ok {
		if _, ok := s.Data[ref.Key]; !ok {
			t.Errorf("container %s: env %s reads key %q, which Secret %s lacks", container, e.Name, ref.Key, s.Name)
		}
	}
}

func isTrue(b *bool) bool { return b != nil && *b }
